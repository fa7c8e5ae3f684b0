-- Media the gateway keeps: a succeeded task's video (and its first frame) copied out of the
-- vendor's short-lived link into the gateway's storage, served through links the gateway signs.
ALTER TABLE "tasks" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "thumbnail_url" text;--> statement-breakpoint
CREATE TABLE "task_media" (
  "task_id" text PRIMARY KEY NOT NULL REFERENCES "tasks"("id"),
  "account_id" text NOT NULL REFERENCES "accounts"("id"),
  "status" text DEFAULT 'pending' NOT NULL,
  "source_url" text,
  "source_expires_at" timestamp with time zone NOT NULL,
  "storage_key" text,
  "bytes" bigint,
  "sha256" text,
  "content_type" text,
  "thumbnail_key" text,
  "thumbnail_bytes" bigint,
  "copy_attempts" integer DEFAULT 0 NOT NULL,
  "copy_error" text,
  "next_attempt_at" timestamp with time zone,
  "stored_at" timestamp with time zone,
  "expires_at" timestamp with time zone NOT NULL,
  "deleted_at" timestamp with time zone,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "task_media_copy_due_idx" ON "task_media" USING btree ("next_attempt_at") WHERE "status" in ('pending', 'failed');--> statement-breakpoint
CREATE INDEX "task_media_expiry_idx" ON "task_media" USING btree ("expires_at") WHERE "status" in ('pending', 'failed', 'stored');
