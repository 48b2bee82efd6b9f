CREATE TABLE "gnl"."run_queue" (
	"run_id" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"crash_at" text,
	"runnable" boolean DEFAULT true NOT NULL,
	"wakeups" integer DEFAULT 1 NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"claimed_at" timestamp with time zone,
	"claims" integer DEFAULT 0 NOT NULL,
	"outcome" text,
	"error" text,
	"abandoned_by" text,
	"abandon_reason" text,
	"abandoned_at" timestamp with time zone,
	"restart_of" text,
	"restarted_as" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gnl"."run_queue" ADD CONSTRAINT "run_queue_run_id_runs_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "gnl"."runs"("run_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_queue_runnable_idx" ON "gnl"."run_queue" USING btree ("queued_at") WHERE runnable;