-- Aborts the statement that calls it, with SQLSTATE MG001 and `reason` as the message. A charge
-- is one statement (billing/ledger.ts): when the account was charged but a check on the key
-- fails, this undoes the whole statement, so a charge also works outside a transaction.
CREATE OR REPLACE FUNCTION mediagate_abort_charge(reason text) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'MG001', MESSAGE = reason;
END
$$;
