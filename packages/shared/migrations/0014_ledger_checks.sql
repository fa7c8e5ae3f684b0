-- The ledger check: each account's ledger sum as of the last entry checked, so the reconciler
-- compares balances with their ledger incrementally (new entries only, plus a rolling batch of
-- accounts) instead of summing the whole ledger on every pass.
CREATE TABLE IF NOT EXISTS "ledger_checks" (
	"account_id" text PRIMARY KEY NOT NULL REFERENCES "accounts"("id"),
	"ledger_sum" bigint NOT NULL,
	"checked_through" bigint NOT NULL,
	"mismatch" boolean NOT NULL,
	"checked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ledger_checks_mismatch_idx" ON "ledger_checks" ("account_id") WHERE "mismatch";
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "ledger_check_state" (
	"id" boolean PRIMARY KEY DEFAULT true CHECK ("id"),
	"through_entry_id" bigint DEFAULT 0 NOT NULL,
	"account_cursor" text DEFAULT '' NOT NULL,
	"checked_at" timestamp with time zone
);
--> statement-breakpoint
INSERT INTO "ledger_check_state" ("id") VALUES (true) ON CONFLICT ("id") DO NOTHING;
