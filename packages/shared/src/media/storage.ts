import type { Readable } from 'node:stream';

/** What storage knows of a stored object. */
export interface StoredObject {
  size: number;
  contentType: string;
}

/** A byte range, inclusive at both ends (as in an HTTP Range header). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PutResult {
  bytes: number;
  /** hex SHA-256 of the bytes stored */
  sha256: string;
}

export interface PutOptions {
  contentType: string;
  /** the most bytes accepted; more fails the put with MediaTooLargeError and stores nothing */
  maxBytes: number;
  /**
   * Called with the first bytes of the stream (at least 12, or all of a shorter stream) before
   * anything is committed; throwing refuses the object (e.g. a file that is not what it claims).
   */
  checkHead?: (head: Buffer) => void;
}

/**
 * Where the gateway keeps media. Keys are derived from task ids (`videos/<task id>.mp4`), so a
 * retried copy overwrites, never forks. A put is all or nothing: until it completes, readers see
 * the previous object or none, never part of one, even if the process dies mid-way.
 */
export interface MediaStorage {
  /** `local` or `s3` */
  readonly driver: 'local' | 's3';
  /**
   * Streams `body` into `key`, hashing it as it goes. Throws MediaTooLargeError past
   * `maxBytes`, or what `checkHead` throws, having stored nothing.
   */
  put(key: string, body: Readable, opts: PutOptions): Promise<PutResult>;
  /** The object's size and type, or null when there is none. */
  head(key: string): Promise<StoredObject | null>;
  /** A stream of the object (or of `range` of it), or null when there is none. */
  get(key: string, range?: ByteRange): Promise<(StoredObject & { body: Readable }) | null>;
  /** Deletes the object; deleting one that is absent is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A URL that serves the object without credentials until `expiresInSeconds` from now, or null
   * when the driver serves objects only through the gateway (local files).
   */
  presign(
    key: string,
    expiresInSeconds: number,
    opts?: { contentDisposition?: string },
  ): Promise<string | null>;
  /** A path or URL ffmpeg can read the object from (for the first frame). */
  readableLocation(key: string): Promise<string>;
  /** Removes leftovers of puts interrupted by a crash, older than `olderThanMs`. Returns how many. */
  sweepIncomplete(olderThanMs: number): Promise<number>;
}

/** The stream was longer than the put allowed. */
export class MediaTooLargeError extends Error {
  readonly code = 'media_too_large';
  constructor(readonly maxBytes: number) {
    super(`the media is larger than ${maxBytes} bytes`);
    this.name = 'MediaTooLargeError';
  }
}

/** The bytes are not the kind of media expected. */
export class MediaTypeError extends Error {
  readonly code = 'media_type_mismatch';
  constructor(message: string) {
    super(message);
    this.name = 'MediaTypeError';
  }
}

/** Storage key of a task's video. */
export const videoKey = (taskId: string): string => `videos/${taskId}.mp4`;
/** Storage key of a task's first frame. */
export const thumbnailKey = (taskId: string): string => `videos/${taskId}.jpg`;
