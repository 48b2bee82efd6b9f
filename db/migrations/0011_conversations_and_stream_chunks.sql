CREATE TABLE "gnl"."stream_chunks" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."stream_chunks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" text NOT NULL,
	"invocation" text NOT NULL,
	"batch" integer NOT NULL,
	"chunks" jsonb NOT NULL,
	"done" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stream_chunks_run_idx" ON "gnl"."stream_chunks" USING btree ("run_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "stream_chunks_batch_key" ON "gnl"."stream_chunks" USING btree ("run_id","invocation","batch");--> statement-breakpoint
CREATE INDEX "runs_conversation_idx" ON "gnl"."runs" USING btree ((input->>'conversationId'),"created_at","run_id") WHERE input ? 'conversationId';