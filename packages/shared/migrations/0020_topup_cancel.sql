-- A top-up the customer cancelled: `cancelled` from `created`, closed at the provider when it can
-- be. `closed_at` stays null while its code may still be paid (an Alipay code never scanned has no
-- trade to close and is payable until its own validity ends): the reconciler keeps querying such
-- an order, and a payment it finds is credited. Orders created per account and hour are counted
-- for the creation cap (TOPUP_MAX_ORDERS_PER_HOUR).
ALTER TABLE "topup_orders" DROP CONSTRAINT IF EXISTS "topup_orders_status_check";
--> statement-breakpoint
ALTER TABLE "topup_orders" ADD CONSTRAINT "topup_orders_status_check" CHECK ("status" in ('created', 'paid', 'credited', 'closed', 'expired', 'cancelled'));
--> statement-breakpoint
ALTER TABLE "topup_orders" ADD COLUMN IF NOT EXISTS "cancelled_at" timestamp with time zone;
--> statement-breakpoint
DROP INDEX IF EXISTS "topup_orders_open_idx";
--> statement-breakpoint
CREATE INDEX "topup_orders_open_idx" ON "topup_orders" USING btree ("created_at") WHERE "topup_orders"."status" in ('created', 'paid') OR ("topup_orders"."status" = 'cancelled' AND "topup_orders"."closed_at" IS NULL);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "topup_orders_account_created_idx" ON "topup_orders" USING btree ("account_id", "created_at");
