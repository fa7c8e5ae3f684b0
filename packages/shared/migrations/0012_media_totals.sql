-- What the stored media add up to (the storage gauges), kept as the rows change instead of summed
-- over the whole task_media table on every reconciler sweep.
CREATE TABLE IF NOT EXISTS "media_totals" (
	"id" boolean PRIMARY KEY DEFAULT true CHECK ("id"),
	"bytes" bigint DEFAULT 0 NOT NULL,
	"objects" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "media_totals" ("bytes", "objects")
SELECT coalesce(sum(coalesce("bytes", 0) + coalesce("thumbnail_bytes", 0)), 0), count(*) + count("thumbnail_key")
FROM "task_media" WHERE "status" = 'stored'
ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION mediagate_media_totals() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	d_bytes bigint := 0;
	d_objects bigint := 0;
BEGIN
	IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'stored' THEN
		d_bytes := d_bytes - coalesce(OLD.bytes, 0) - coalesce(OLD.thumbnail_bytes, 0);
		d_objects := d_objects - 1 - (OLD.thumbnail_key IS NOT NULL)::int;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'stored' THEN
		d_bytes := d_bytes + coalesce(NEW.bytes, 0) + coalesce(NEW.thumbnail_bytes, 0);
		d_objects := d_objects + 1 + (NEW.thumbnail_key IS NOT NULL)::int;
	END IF;
	IF d_bytes <> 0 OR d_objects <> 0 THEN
		UPDATE "media_totals" SET "bytes" = "bytes" + d_bytes, "objects" = "objects" + d_objects;
	END IF;
	RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "task_media_totals" ON "task_media";
--> statement-breakpoint
CREATE TRIGGER "task_media_totals"
AFTER INSERT OR DELETE OR UPDATE OF "status", "bytes", "thumbnail_bytes", "thumbnail_key" ON "task_media"
FOR EACH ROW EXECUTE FUNCTION mediagate_media_totals();
