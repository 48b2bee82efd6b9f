CREATE TABLE "gnl"."bulk_preview_runs" (
	"preview_id" text NOT NULL,
	"run_id" text NOT NULL,
	CONSTRAINT "bulk_preview_runs_preview_id_run_id_pk" PRIMARY KEY("preview_id","run_id")
);
--> statement-breakpoint
CREATE TABLE "gnl"."bulk_previews" (
	"id" text PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"filter" jsonb NOT NULL,
	"previewed_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"counts" jsonb NOT NULL,
	"applied_by" text,
	"apply_reason" text,
	"applied_at" timestamp with time zone,
	"apply_counts" jsonb
);
--> statement-breakpoint
ALTER TABLE "gnl"."bulk_preview_runs" ADD CONSTRAINT "bulk_preview_runs_preview_id_bulk_previews_id_fk" FOREIGN KEY ("preview_id") REFERENCES "gnl"."bulk_previews"("id") ON DELETE cascade ON UPDATE no action;