-- The journal is append-only: an event row, once written, is never updated or deleted.
-- The database enforces it, so no code path (or operator with psql) can rewrite history by accident.
CREATE FUNCTION "gnl"."reject_event_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.run_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "run_events_append_only" BEFORE UPDATE OR DELETE ON "gnl"."run_events"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_event_change"();
--> statement-breakpoint
CREATE TRIGGER "run_events_no_truncate" BEFORE TRUNCATE ON "gnl"."run_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_event_change"();
