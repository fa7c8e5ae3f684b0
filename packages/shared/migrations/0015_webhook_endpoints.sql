-- Failing callback endpoints: an endpoint whose deliveries have failed for good for longer than the
-- configured period is disabled, and its deliveries are held (status 'held') until it is enabled again.
CREATE TABLE IF NOT EXISTS "webhook_endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL REFERENCES "accounts"("id"),
	"url" text NOT NULL,
	"status" text DEFAULT 'enabled' NOT NULL,
	"failing_since" timestamp with time zone,
	"last_failure_at" timestamp with time zone,
	"last_error" text,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"notified_at" timestamp with time zone,
	"enabled_at" timestamp with time zone,
	"enabled_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "webhook_endpoints_account_url_idx" ON "webhook_endpoints" USING btree ("account_id","url");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "webhook_endpoints_disabled_idx" ON "webhook_endpoints" USING btree ("status","disabled_at");
--> statement-breakpoint
ALTER TABLE "callback_deliveries" ADD COLUMN IF NOT EXISTS "held_for" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "callback_deliveries_held_idx" ON "callback_deliveries" USING btree ("held_for") WHERE "status" = 'held';
