-- A refund the provider reports for more than is left of the payment (refunds adding up past what
-- was paid) is `held` for an operator: acknowledged to the provider, nothing debited, `failure`
-- says what was reported. NOT VALID then VALIDATE gains nothing here: drizzle runs every migration
-- in one transaction, so the ACCESS EXCLUSIVE lock of DROP/ADD CONSTRAINT is held through the
-- VALIDATE's scan until the commit (topup_refunds is small: a row per refund). To lock less on a
-- big table, VALIDATE in a later transaction (a backfill), not in the same file.
ALTER TABLE "topup_refunds" DROP CONSTRAINT IF EXISTS "topup_refunds_status_check";
--> statement-breakpoint
ALTER TABLE "topup_refunds" ADD CONSTRAINT "topup_refunds_status_check" CHECK ("status" in ('pending', 'succeeded', 'failed', 'held')) NOT VALID;
--> statement-breakpoint
ALTER TABLE "topup_refunds" VALIDATE CONSTRAINT "topup_refunds_status_check";
