CREATE TABLE "gnl"."demo_crash_points" (
	"run_id" text PRIMARY KEY NOT NULL,
	"crash_at" text NOT NULL,
	"armed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- A run queued with a crash point before this migration keeps it: the demo's table holds it now.
INSERT INTO "gnl"."demo_crash_points" ("run_id", "crash_at") SELECT "run_id", "crash_at" FROM "gnl"."run_queue" WHERE "crash_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "gnl"."run_queue" DROP COLUMN "crash_at";