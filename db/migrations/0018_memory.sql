CREATE TABLE "gnl"."memory_items" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "gnl"."memory_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"resource" text NOT NULL,
	"thread" text,
	"kind" text NOT NULL,
	"role" text,
	"text" text NOT NULL,
	"embedding" "bytea",
	"key" text NOT NULL,
	"ordinal" integer NOT NULL,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gnl"."working_memory" (
	"resource" text NOT NULL,
	"version" integer NOT NULL,
	"value" jsonb NOT NULL,
	"updated_by" text NOT NULL,
	"reason" text,
	"key" text NOT NULL,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "working_memory_resource_version_pk" PRIMARY KEY("resource","version")
);
--> statement-breakpoint
CREATE INDEX "memory_items_resource_idx" ON "gnl"."memory_items" USING btree ("resource","kind","id");--> statement-breakpoint
CREATE UNIQUE INDEX "memory_items_key_idx" ON "gnl"."memory_items" USING btree ("key","ordinal");--> statement-breakpoint
CREATE UNIQUE INDEX "working_memory_key_idx" ON "gnl"."working_memory" USING btree ("key");