-- Refunds of QR top-ups: one row per refund at the provider (an operator's through the refund
-- API, or one made in the merchant portal and learnt from its notification). `refund_no` is the
-- merchant's refund number (Alipay out_request_no / out_biz_no, WeChat Pay out_refund_no), unique
-- per order; a refund that succeeds debits the refunded share of the order's credit once.
CREATE TABLE IF NOT EXISTS "topup_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"refund_no" text NOT NULL,
	"provider_refund_id" text,
	"origin" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"amount_fen" bigint NOT NULL,
	"debit_micro_usd" bigint DEFAULT 0 NOT NULL,
	"uncovered_micro_usd" bigint DEFAULT 0 NOT NULL,
	"reason" text,
	"operator_id" text,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"succeeded_at" timestamp with time zone,
	CONSTRAINT "topup_refunds_status_check" CHECK ("status" in ('pending', 'succeeded', 'failed')),
	CONSTRAINT "topup_refunds_origin_check" CHECK ("origin" in ('operator', 'provider')),
	CONSTRAINT "topup_refunds_amounts_check" CHECK ("amount_fen" > 0 AND "debit_micro_usd" >= 0 AND "uncovered_micro_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "topup_refunds" ADD CONSTRAINT "topup_refunds_order_id_topup_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."topup_orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topup_refunds" ADD CONSTRAINT "topup_refunds_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "topup_refunds_order_no_idx" ON "topup_refunds" USING btree ("order_id","refund_no");--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "topup_refunds_provider_refund_idx" ON "topup_refunds" USING btree ("provider","provider_refund_id") WHERE "topup_refunds"."provider_refund_id" is not null;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "topup_refunds_pending_idx" ON "topup_refunds" USING btree ("created_at") WHERE "topup_refunds"."status" = 'pending';--> statement-breakpoint
-- What the provider refunded of the order so far (succeeded refunds), in fen.
ALTER TABLE "topup_orders" ADD COLUMN IF NOT EXISTS "refunded_fen" bigint DEFAULT 0 NOT NULL;
