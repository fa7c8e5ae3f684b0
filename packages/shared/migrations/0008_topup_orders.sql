-- QR-code top-up orders (Alipay face-to-face, WeChat Pay Native). One row per order; the move
-- to `credited` commits with the payment row and the ledger entries (billing/topup-orders.ts).
CREATE TABLE "topup_orders" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"status" text DEFAULT 'created' NOT NULL,
	"amount_fen" bigint NOT NULL,
	"credit_micro_usd" bigint NOT NULL,
	"bonus_micro_usd" bigint DEFAULT 0 NOT NULL,
	"provider_trade_id" text,
	"qr_code" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	"credited_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	CONSTRAINT "topup_orders_status_check" CHECK ("status" in ('created', 'paid', 'credited', 'closed', 'expired')),
	CONSTRAINT "topup_orders_amounts_check" CHECK ("amount_fen" > 0 AND "credit_micro_usd" > 0 AND "bonus_micro_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "topup_orders" ADD CONSTRAINT "topup_orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "topup_orders_account_idx" ON "topup_orders" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "topup_orders_open_idx" ON "topup_orders" USING btree ("created_at") WHERE "topup_orders"."status" in ('created', 'paid');--> statement-breakpoint
CREATE UNIQUE INDEX "topup_orders_provider_trade_idx" ON "topup_orders" USING btree ("provider","provider_trade_id") WHERE "topup_orders"."provider_trade_id" is not null;
--> statement-breakpoint
-- Each account's bank-transfer reference (derived from its id, stored when first shown so an
-- operator can find the account from a transfer memo).
CREATE TABLE "bank_transfer_references" (
	"reference" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bank_transfer_references" ADD CONSTRAINT "bank_transfer_references_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bank_transfer_references_account_idx" ON "bank_transfer_references" USING btree ("account_id");
