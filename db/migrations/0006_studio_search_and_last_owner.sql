ALTER TABLE "gnl"."run_queue" ADD COLUMN "last_lease_owner" text;--> statement-breakpoint
CREATE INDEX "run_events_tool_name_idx" ON "gnl"."run_events" USING btree ((payload->>'toolName'),"run_id") WHERE type in ('tool-call-start', 'tool-call-end', 'tool-call-error', 'tool-approval-request');--> statement-breakpoint
CREATE INDEX "run_events_idempotency_key_idx" ON "gnl"."run_events" USING btree ((payload->>'idempotencyKey'),"run_id") WHERE type in ('tool-call-start', 'tool-call-end', 'tool-call-error');--> statement-breakpoint
CREATE INDEX "runs_agent_created_idx" ON "gnl"."runs" USING btree ((input->>'agent'),"created_at","run_id");--> statement-breakpoint
CREATE INDEX "runs_run_id_prefix_idx" ON "gnl"."runs" USING btree ("run_id" text_pattern_ops);--> statement-breakpoint
UPDATE "gnl"."run_queue" SET "last_lease_owner" = "lease_owner" WHERE "lease_owner" IS NOT NULL;
