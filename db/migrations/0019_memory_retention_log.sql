CREATE TABLE "gnl"."memory_retention_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."memory_retention_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"resource" text NOT NULL,
	"items" integer NOT NULL,
	"versions" integer NOT NULL,
	"bytes" bigint NOT NULL,
	"older_than" timestamp with time zone NOT NULL,
	"policy_days" integer NOT NULL,
	"dropped_by" text NOT NULL,
	"dropped_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "memory_retention_log_resource_idx" ON "gnl"."memory_retention_log" USING btree ("resource","id");--> statement-breakpoint
CREATE INDEX "memory_retention_log_dropped_idx" ON "gnl"."memory_retention_log" USING btree ("dropped_at","id");--> statement-breakpoint
-- The memory retention log is append-only: what was deleted of whose memory, when and by which job is never rewritten.
CREATE FUNCTION "gnl"."reject_memory_retention_log_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.memory_retention_log is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "memory_retention_log_append_only" BEFORE UPDATE OR DELETE ON "gnl"."memory_retention_log"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_memory_retention_log_change"();
--> statement-breakpoint
CREATE TRIGGER "memory_retention_log_no_truncate" BEFORE TRUNCATE ON "gnl"."memory_retention_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_memory_retention_log_change"();
