-- One operator retry per failed task: the retry's task is recorded here in the transaction that
-- creates (and charges) it, so concurrent retries of one task create exactly one. The row is
-- written first (it is the lock), so the reference to the new task is checked at commit.
CREATE TABLE IF NOT EXISTS "task_retries" (
	"source_task_id" text PRIMARY KEY NOT NULL REFERENCES "tasks"("id"),
	"task_id" text NOT NULL REFERENCES "tasks"("id") DEFERRABLE INITIALLY DEFERRED,
	"operator_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Who made a ledger entry by hand (an operator's adjustment or bank top-up): for operators only,
-- never shown to the account's owner.
ALTER TABLE "ledger_entries" ADD COLUMN IF NOT EXISTS "operator_id" text;
