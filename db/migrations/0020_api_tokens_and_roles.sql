CREATE TABLE "gnl"."api_token_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."api_token_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"token_id" text NOT NULL,
	"name" text NOT NULL,
	"action" text NOT NULL,
	"by" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gnl"."api_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"agents" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"revoked_by" text,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_tokens_name_key" UNIQUE("name"),
	CONSTRAINT "api_tokens_hash_key" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "gnl"."operators" ADD COLUMN "role" text DEFAULT 'admin' NOT NULL;--> statement-breakpoint
ALTER TABLE "gnl"."api_token_audit" ADD CONSTRAINT "api_token_audit_token_id_api_tokens_id_fk" FOREIGN KEY ("token_id") REFERENCES "gnl"."api_tokens"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_token_audit_token_idx" ON "gnl"."api_token_audit" USING btree ("token_id","id");--> statement-breakpoint
-- The token audit is append-only: what a token was made for, who revoked it and every call made with it are never rewritten.
CREATE FUNCTION "gnl"."reject_api_token_audit_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.api_token_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "api_token_audit_append_only" BEFORE UPDATE OR DELETE ON "gnl"."api_token_audit"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_api_token_audit_change"();
--> statement-breakpoint
CREATE TRIGGER "api_token_audit_no_truncate" BEFORE TRUNCATE ON "gnl"."api_token_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_api_token_audit_change"();
