CREATE TABLE "gnl"."maintenance_passes" (
	"job" text PRIMARY KEY NOT NULL,
	"last_started_at" timestamp with time zone NOT NULL,
	"last_owner" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gnl"."retention_log" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."retention_log_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" text NOT NULL,
	"agent" text NOT NULL,
	"status" text NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"event_count" integer NOT NULL,
	"payload_bytes" bigint NOT NULL,
	"blob_bytes" bigint NOT NULL,
	"policy_days" integer NOT NULL,
	"dropped_by" text NOT NULL,
	"dropped_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "retention_log_run_idx" ON "gnl"."retention_log" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "retention_log_dropped_idx" ON "gnl"."retention_log" USING btree ("dropped_at","id");--> statement-breakpoint
-- The retention log is append-only: which run was dropped, when and by which job is never rewritten.
CREATE FUNCTION "gnl"."reject_retention_log_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.retention_log is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "retention_log_append_only" BEFORE UPDATE OR DELETE ON "gnl"."retention_log"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_retention_log_change"();
--> statement-breakpoint
CREATE TRIGGER "retention_log_no_truncate" BEFORE TRUNCATE ON "gnl"."retention_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_retention_log_change"();
--> statement-breakpoint
-- The journal stays append-only with one exception: the retention job (lib/executor/retention.ts) deletes
-- the events of a run it drops, in a transaction that set `gnl.retention_drop` to that run's id
-- (set_config(…, true): the transaction's own) and writes its gnl.retention_log row. Any other DELETE,
-- every UPDATE and TRUNCATE are refused as before. A guard against accidents, not against a role that may
-- change triggers.
CREATE OR REPLACE FUNCTION "gnl"."reject_event_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('gnl.retention_drop', true) = OLD.run_id THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'gnl.run_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
-- A stored big value may be deleted only by a retention drop, and only once no event (of any run) names it:
-- bodies are content-addressed, so two runs may share one.
CREATE OR REPLACE FUNCTION "gnl"."reject_payload_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF coalesce(current_setting('gnl.retention_drop', true), '') <> ''
       AND NOT EXISTS (SELECT 1 FROM "gnl"."run_events" WHERE blobs IS NOT NULL AND blobs @> ARRAY[OLD.hash]) THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'gnl.payloads is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
