CREATE TABLE "gnl"."schedules" (
	"schedule_id" text PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"cron" text NOT NULL,
	"time_zone" text NOT NULL,
	"missed" text NOT NULL,
	"grace_ms" integer NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	"last_slot" timestamp with time zone,
	"last_run_id" text,
	"last_started_at" timestamp with time zone,
	"last_missed_from" timestamp with time zone,
	"last_missed_to" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
