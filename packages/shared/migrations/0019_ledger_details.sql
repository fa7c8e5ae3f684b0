-- What a ledger entry is, in fields (LedgerDetails in src/db/schema/ledger.ts): the console words
-- every entry in the reader's language from them instead of showing the English `reason`, which
-- stays for older readers. A charge has none: its model and units are on its usage record.
ALTER TABLE "ledger_entries" ADD COLUMN IF NOT EXISTS "details" jsonb;
-- Entries written before get theirs from src/db/backfills.ts after the migrations, in short
-- batches: an update of every entry here would hold the ledger locked for the migrations' whole
-- transaction.
