-- Where each backfill (src/db/backfills.ts) has got to: data changes too large for the migrations'
-- one transaction run after it, in short batches, and resume from here.
CREATE TABLE IF NOT EXISTS "data_backfills" (
  "name" text PRIMARY KEY,
  "last_id" bigint NOT NULL DEFAULT 0,
  "updated_at" timestamptz NOT NULL DEFAULT now()
);
