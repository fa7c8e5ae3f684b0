-- Every account has its bank-transfer reference stored from its creation (an operator finds the
-- account by the memo of a transfer), so showing it to the owner reads nothing but the account
-- id. bank_transfer_reference() computes it as the code does (bankTransferReference in
-- packages/shared/src/billing/topup-orders.ts): 'MG' and 10 Crockford base32 characters of the
-- first 50 bits of SHA-256('mediagate-transfer:' || account id).
CREATE OR REPLACE FUNCTION "bank_transfer_reference"("account_id" text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT 'MG' || string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', ((d.v >> (51 - 5 * i)) & 31)::int + 1, 1), '' ORDER BY i)
  FROM (
    SELECT ('x' || encode(substring(sha256(convert_to('mediagate-transfer:' || "account_id", 'UTF8')) FROM 1 FOR 7), 'hex'))::bit(56)::bigint AS v
  ) d, generate_series(0, 9) AS i
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "accounts_store_bank_transfer_reference"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "bank_transfer_references" ("reference", "account_id")
  VALUES (bank_transfer_reference(NEW."id"), NEW."id")
  ON CONFLICT DO NOTHING;
  RETURN NEW;
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "accounts_bank_transfer_reference" ON "accounts";
--> statement-breakpoint
CREATE TRIGGER "accounts_bank_transfer_reference" AFTER INSERT ON "accounts"
FOR EACH ROW EXECUTE FUNCTION "accounts_store_bank_transfer_reference"();
--> statement-breakpoint
INSERT INTO "bank_transfer_references" ("reference", "account_id")
SELECT bank_transfer_reference("id"), "id" FROM "accounts"
ON CONFLICT DO NOTHING;
