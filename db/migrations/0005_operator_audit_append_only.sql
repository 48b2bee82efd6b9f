-- The operator audit is append-only: who changed an account, and when, is never rewritten.
CREATE FUNCTION "gnl"."reject_audit_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.operator_audit is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "operator_audit_append_only" BEFORE UPDATE OR DELETE ON "gnl"."operator_audit"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_audit_change"();
--> statement-breakpoint
CREATE TRIGGER "operator_audit_no_truncate" BEFORE TRUNCATE ON "gnl"."operator_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_audit_change"();
