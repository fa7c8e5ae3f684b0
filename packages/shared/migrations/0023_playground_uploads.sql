-- Images uploaded in the console's playground for a video's input: kept for a while at an
-- unguessable public URL that the vendor fetches, counted against a per-account daily quota.
CREATE TABLE IF NOT EXISTS "playground_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"bytes" bigint,
	"sha256" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"stored_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "playground_uploads_account_idx" ON "playground_uploads" USING btree ("account_id","created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "playground_uploads_expiry_idx" ON "playground_uploads" USING btree ("expires_at") WHERE "deleted_at" IS NULL;
