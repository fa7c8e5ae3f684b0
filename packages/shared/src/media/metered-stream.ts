import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { MediaTooLargeError, type PutOptions } from './storage';

/**
 * A pass-through that hashes and counts what flows through it, fails with MediaTooLargeError
 * past `maxBytes`, and hands the first bytes to `checkHead` before passing any on.
 */
export class MeteredStream extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  private head: Buffer[] | null = [];
  private headBytes = 0;
  private digest = '';

  constructor(private readonly opts: Pick<PutOptions, 'maxBytes' | 'checkHead'>) {
    super();
  }

  /** hex SHA-256 of everything that passed; set once the stream has ended */
  get sha256(): string {
    return this.digest;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.opts.maxBytes) {
      done(new MediaTooLargeError(this.opts.maxBytes));
      return;
    }
    this.hash.update(chunk);
    if (!this.head) {
      done(null, chunk);
      return;
    }
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < 12) done();
    else done(this.releaseHead());
  }

  override _flush(done: TransformCallback): void {
    const err = this.head ? this.releaseHead() : null;
    if (!err) this.digest = this.hash.digest('hex');
    done(err);
  }

  /** Checks the first bytes and passes them on; returns the check's error, if any. */
  private releaseHead(): Error | null {
    const head = Buffer.concat(this.head ?? []);
    this.head = null;
    try {
      this.opts.checkHead?.(head);
    } catch (err) {
      return err as Error;
    }
    this.push(head);
    return null;
  }
}
