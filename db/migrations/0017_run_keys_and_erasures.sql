CREATE TABLE "gnl"."erasures" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."erasures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" text NOT NULL,
	"subject" text,
	"erased_by" text NOT NULL,
	"reason" text NOT NULL,
	"erased_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gnl"."run_keys" (
	"run_id" text PRIMARY KEY NOT NULL,
	"wrapped" text,
	"subject" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"erased_at" timestamp with time zone,
	"erased_by" text,
	"erased_reason" text
);
--> statement-breakpoint
CREATE INDEX "erasures_run_idx" ON "gnl"."erasures" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "erasures_at_idx" ON "gnl"."erasures" USING btree ("erased_at","id");--> statement-breakpoint
CREATE INDEX "run_keys_subject_idx" ON "gnl"."run_keys" USING btree ("subject","created_at") WHERE subject is not null;--> statement-breakpoint
-- The erasure log is append-only: who erased which run, when and why is never rewritten.
CREATE FUNCTION "gnl"."reject_erasures_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gnl.erasures is append-only: % is not allowed', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "erasures_append_only" BEFORE UPDATE OR DELETE ON "gnl"."erasures"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."reject_erasures_change"();
--> statement-breakpoint
CREATE TRIGGER "erasures_no_truncate" BEFORE TRUNCATE ON "gnl"."erasures"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."reject_erasures_change"();
--> statement-breakpoint
-- A run's key changes once, one way: erased (wrapped emptied, who/when/why set). It is never replaced or
-- brought back; its row goes only with its run, in a retention drop (gnl.retention_drop set to the run's id).
CREATE FUNCTION "gnl"."guard_run_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF current_setting('gnl.retention_drop', true) = OLD.run_id THEN
      RETURN OLD;
    END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF OLD.wrapped IS NOT NULL AND NEW.wrapped IS NULL AND NEW.run_id = OLD.run_id
       AND NEW.subject IS NOT DISTINCT FROM OLD.subject AND NEW.created_at = OLD.created_at
       AND NEW.erased_at IS NOT NULL AND NEW.erased_by IS NOT NULL THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'gnl.run_keys: a run''s key may only be erased (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "run_keys_guard" BEFORE UPDATE OR DELETE ON "gnl"."run_keys"
  FOR EACH ROW EXECUTE FUNCTION "gnl"."guard_run_key_change"();
--> statement-breakpoint
CREATE TRIGGER "run_keys_no_truncate" BEFORE TRUNCATE ON "gnl"."run_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "gnl"."guard_run_key_change"();
