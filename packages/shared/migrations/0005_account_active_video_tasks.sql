ALTER TABLE "accounts" ADD COLUMN "active_video_tasks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "accounts" a SET "active_video_tasks" = (SELECT count(*) FROM "tasks" t WHERE t."account_id" = a."id" AND t."status" IN ('pending', 'processing'));
