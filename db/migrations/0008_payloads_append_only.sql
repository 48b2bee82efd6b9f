-- Stored big values are append-only like the events that name them: a body, once written, is never
-- changed or removed (an event naming it would read something else, or nothing).
CREATE FUNCTION "gnl"."reject_payload_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.payloads is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "payloads_append_only" BEFORE UPDATE OR DELETE ON "gnl"."payloads"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_payload_change"();
--> statement-breakpoint
CREATE TRIGGER "payloads_no_truncate" BEFORE TRUNCATE ON "gnl"."payloads"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_payload_change"();
