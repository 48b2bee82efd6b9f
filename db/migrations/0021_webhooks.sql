CREATE TABLE "gnl"."webhook_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."webhook_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"webhook_id" text NOT NULL,
	"action" text NOT NULL,
	"by" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"detail" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gnl"."webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"url" jsonb NOT NULL,
	"origin" text NOT NULL,
	"format" text NOT NULL,
	"secret" jsonb NOT NULL,
	"previous_secret" jsonb,
	"previous_until" timestamp with time zone,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhook_audit_webhook_idx" ON "gnl"."webhook_audit" USING btree ("webhook_id","id");--> statement-breakpoint
-- The webhook audit is append-only: who added, paused, rotated or removed a webhook and every test sent are never rewritten.
CREATE FUNCTION "gnl"."reject_webhook_audit_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.webhook_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "webhook_audit_append_only" BEFORE UPDATE OR DELETE ON "gnl"."webhook_audit"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_webhook_audit_change"();
--> statement-breakpoint
CREATE TRIGGER "webhook_audit_no_truncate" BEFORE TRUNCATE ON "gnl"."webhook_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_webhook_audit_change"();
