CREATE SCHEMA "gnl";
--> statement-breakpoint
CREATE TABLE "gnl"."run_events" (
	"run_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_events_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "gnl"."runs" (
	"run_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"last_seq" integer NOT NULL,
	"step_count" integer DEFAULT 0 NOT NULL,
	"input" jsonb NOT NULL,
	"pending" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "gnl"."runs" USING btree ("created_at","run_id");--> statement-breakpoint
CREATE INDEX "runs_status_created_idx" ON "gnl"."runs" USING btree ("status","created_at","run_id");