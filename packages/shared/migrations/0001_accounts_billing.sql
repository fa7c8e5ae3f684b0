CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"ip" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "email_verifications" (
	"email" text PRIMARY KEY NOT NULL,
	"password_hash" text NOT NULL,
	"code_hash" text,
	"expires_at" timestamp with time zone NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"last_sent_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"provider" text NOT NULL,
	"reference" text NOT NULL,
	"amount_micro_usd" bigint NOT NULL,
	"bonus_micro_usd" bigint DEFAULT 0 NOT NULL,
	"created_by" text,
	"note" text,
	"raw" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_key_id" text,
	"ref" text NOT NULL,
	"model" text,
	"units" integer DEFAULT 1 NOT NULL,
	"cost_micro_usd" bigint NOT NULL,
	"refunded_micro_usd" bigint DEFAULT 0 NOT NULL,
	"outcome" text DEFAULT 'accepted' NOT NULL,
	"request_id" text,
	"latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "password_hash" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "role" text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "rpm_limit" integer;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "max_active_video_tasks" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "quota_micro_usd" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "used_micro_usd" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_models" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" text[];--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_records" ADD CONSTRAINT "usage_records_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "console_sessions_token_hash_idx" ON "console_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "console_sessions_account_idx" ON "console_sessions" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_provider_reference_idx" ON "payments" USING btree ("provider","reference");--> statement-breakpoint
CREATE INDEX "payments_account_idx" ON "payments" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_records_ref_idx" ON "usage_records" USING btree ("ref");--> statement-breakpoint
CREATE INDEX "usage_records_account_idx" ON "usage_records" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "tasks_account_active_idx" ON "tasks" USING btree ("account_id") WHERE "tasks"."status" in ('pending', 'processing');--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_used_nonneg" CHECK ("api_keys"."used_micro_usd" >= 0);