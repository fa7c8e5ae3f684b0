-- Rows written before this migration take its time as settled_at (a constant default: no table rewrite):
-- image calls charged until now settled their refunds in the old way, and only calls charged from now on
-- (settled_at null) are left to the reconciler when their settlement does not commit.
ALTER TABLE "usage_records" ADD COLUMN "settled_at" timestamp with time zone DEFAULT now();--> statement-breakpoint
CREATE INDEX "usage_records_unsettled_idx" ON "usage_records" USING btree ("created_at") WHERE "usage_records"."settled_at" is null;