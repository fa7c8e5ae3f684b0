-- Top-ups paid on a phone: the provider's mobile pay URL (Alipay's mobile cashier, WeChat Pay H5)
-- the payer's browser opens, instead of a QR code.
ALTER TABLE "topup_orders" ADD COLUMN IF NOT EXISTS "pay_url" text;
