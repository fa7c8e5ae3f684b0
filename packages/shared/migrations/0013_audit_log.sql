-- Operators' actions (who changed what on which account or task, when, before and after), written in
-- the transaction of the change. Append-only: the triggers below refuse every UPDATE, DELETE and TRUNCATE.
CREATE TABLE IF NOT EXISTS "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"operator_id" text NOT NULL REFERENCES "accounts"("id"),
	"operator_email" text NOT NULL,
	"action" text NOT NULL,
	"account_id" text REFERENCES "accounts"("id"),
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"request_id" text
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_log_account_idx" ON "audit_log" USING btree ("account_id","id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_log_target_idx" ON "audit_log" USING btree ("target_id","id");
--> statement-breakpoint
CREATE OR REPLACE FUNCTION mediagate_audit_log_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "audit_log_no_update_delete" ON "audit_log";
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_update_delete" BEFORE UPDATE OR DELETE ON "audit_log"
	FOR EACH ROW EXECUTE FUNCTION mediagate_audit_log_append_only();
--> statement-breakpoint
DROP TRIGGER IF EXISTS "audit_log_no_truncate" ON "audit_log";
--> statement-breakpoint
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
	FOR EACH STATEMENT EXECUTE FUNCTION mediagate_audit_log_append_only();
