CREATE TABLE "gnl"."schedule_audit" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."schedule_audit_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"schedule_id" text NOT NULL,
	"action" text NOT NULL,
	"by" text NOT NULL,
	"reason" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"slot" timestamp with time zone,
	"run_id" text
);
--> statement-breakpoint
ALTER TABLE "gnl"."schedules" ADD COLUMN "overlap" text DEFAULT 'allow' NOT NULL;--> statement-breakpoint
ALTER TABLE "gnl"."schedules" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "gnl"."schedules" ADD COLUMN "paused_by" text;--> statement-breakpoint
ALTER TABLE "gnl"."schedules" ADD COLUMN "pause_reason" text;--> statement-breakpoint
CREATE INDEX "schedule_audit_schedule_idx" ON "gnl"."schedule_audit" USING btree ("schedule_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_audit_skip_key" ON "gnl"."schedule_audit" USING btree ("schedule_id","slot") WHERE action = 'overlap-skip';--> statement-breakpoint
CREATE UNIQUE INDEX "schedule_audit_run_now_key" ON "gnl"."schedule_audit" USING btree ("run_id") WHERE action = 'run-now';--> statement-breakpoint
-- The schedule audit is append-only: who paused, unpaused or ran a schedule, and which slots were skipped, is never rewritten.
CREATE FUNCTION "gnl"."reject_schedule_audit_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.schedule_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "schedule_audit_append_only" BEFORE UPDATE OR DELETE ON "gnl"."schedule_audit"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_schedule_audit_change"();
--> statement-breakpoint
CREATE TRIGGER "schedule_audit_no_truncate" BEFORE TRUNCATE ON "gnl"."schedule_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_schedule_audit_change"();
