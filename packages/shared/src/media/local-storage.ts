import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MeteredStream } from './metered-stream';
import type { ByteRange, MediaStorage, PutOptions, PutResult, StoredObject } from './storage';

const TYPES: Record<string, string> = { '.mp4': 'video/mp4', '.jpg': 'image/jpeg' };
const typeOf = (key: string) => TYPES[path.extname(key)] ?? 'application/octet-stream';
const TMP = '.incomplete';

/**
 * Media on the local filesystem under `dir`. A put writes `<dir>/.incomplete/<random>`, flushes it
 * to disk and renames it onto the key (atomic on one filesystem), so a reader sees the whole file
 * or none; a crash leaves only a temporary file, removed by sweepIncomplete.
 */
export class LocalMediaStorage implements MediaStorage {
  readonly driver = 'local' as const;

  constructor(private readonly dir: string) {}

  private pathOf(key: string): string {
    if (!/^[\w-]+(\/[\w.-]+)*$/.test(key) || key.includes('..')) throw new Error(`invalid media key: ${key}`);
    return path.join(this.dir, key);
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    // the pipeline below reports the source's errors; until it is set up, none may go unheard
    body.on('error', () => {});
    const target = this.pathOf(key);
    const tmpDir = path.join(this.dir, TMP);
    await mkdir(tmpDir, { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
    const meter = new MeteredStream(opts);
    try {
      await pipeline(body, meter, createWriteStream(tmp, { flags: 'wx' }));
      const handle = await open(tmp, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { bytes: meter.bytes, sha256: meter.sha256 };
  }

  async head(key: string): Promise<StoredObject | null> {
    const s = await stat(this.pathOf(key)).catch(() => null);
    return s?.isFile() ? { size: s.size, contentType: typeOf(key) } : null;
  }

  async get(key: string, range?: ByteRange): Promise<(StoredObject & { body: Readable }) | null> {
    const found = await this.head(key);
    if (!found) return null;
    const body = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    return { ...found, body };
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async presign(): Promise<string | null> {
    return null;
  }

  async readableLocation(key: string): Promise<string> {
    return this.pathOf(key);
  }

  async sweepIncomplete(olderThanMs: number): Promise<number> {
    const tmpDir = path.join(this.dir, TMP);
    const names = await readdir(tmpDir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const s = await stat(path.join(tmpDir, name)).catch(() => null);
      if (s && Date.now() - s.mtimeMs > olderThanMs) {
        await rm(path.join(tmpDir, name), { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}
