CREATE TABLE "gnl"."payloads" (
	"hash" text PRIMARY KEY NOT NULL,
	"bytes" bigint NOT NULL,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "gnl"."run_events" ADD COLUMN "blobs" text[];--> statement-breakpoint
CREATE INDEX "run_events_blobs_idx" ON "gnl"."run_events" USING btree ("run_id","seq") WHERE blobs is not null;