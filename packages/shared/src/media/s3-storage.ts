import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { MeteredStream } from './metered-stream';
import type { ByteRange, MediaStorage, PutOptions, PutResult, StoredObject } from './storage';

export interface S3StorageOptions {
  bucket: string;
  /** e.g. MinIO `http://minio:9000`, R2 `https://<account>.r2.cloudflarestorage.com`; unset = AWS */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `http://endpoint/bucket/key` addressing (MinIO and most self-hosted stores need it) */
  forcePathStyle: boolean;
  /** a CDN or public origin in front of the bucket: links are `<base>/<key>` instead of presigned */
  publicBaseUrl?: string;
  /** size of a multipart upload's parts; memory per put is about twice this */
  partSizeBytes?: number;
}

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Media in an S3-compatible bucket (AWS S3, MinIO, Alibaba OSS, Tencent COS, Cloudflare R2 by
 * endpoint). A put is a multipart upload completed only after the last byte passed the size cap
 * and the type check: until then the key shows nothing, and a failed put aborts the upload. A
 * crash mid-put leaves an incomplete upload (invisible), which sweepIncomplete aborts (a bucket
 * lifecycle rule `AbortIncompleteMultipartUpload` does the same).
 */
export class S3MediaStorage implements MediaStorage {
  readonly driver = 's3' as const;
  readonly client: S3Client;

  constructor(private readonly opts: S3StorageOptions) {
    this.client = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      credentials:
        opts.accessKeyId && opts.secretAccessKey
          ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
          : undefined,
    });
  }

  async put(key: string, body: Readable, opts: PutOptions): Promise<PutResult> {
    const meter = new MeteredStream(opts);
    let streamError: unknown;
    meter.on('error', (err) => {
      streamError ??= err;
    });
    body.on('error', (err) => meter.destroy(err));
    body.pipe(meter);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.opts.bucket, Key: key, Body: meter, ContentType: opts.contentType },
      partSize: this.opts.partSizeBytes ?? 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      body.destroy();
      // the stream's own failure (size cap, type check, a broken source) says more than the
      // store's answer to the aborted upload
      throw streamError ?? err;
    }
    return { bytes: meter.bytes, sha256: meter.sha256 };
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key: key }));
      return {
        size: Number(res.ContentLength ?? 0),
        contentType: res.ContentType ?? 'application/octet-stream',
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<(StoredObject & { body: Readable }) | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const total = /\/(\d+)$/.exec(res.ContentRange ?? '')?.[1];
      return {
        size: Number(total ?? res.ContentLength ?? 0),
        contentType: res.ContentType ?? 'application/octet-stream',
        body: res.Body as Readable,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
  }

  async presign(
    key: string,
    expiresInSeconds: number,
    opts: { contentDisposition?: string } = {},
  ): Promise<string | null> {
    if (this.opts.publicBaseUrl) return `${this.opts.publicBaseUrl.replace(/\/$/, '')}/${key}`;
    // SigV4 presigned URLs live at most 7 days
    const expiresIn = Math.max(1, Math.min(expiresInSeconds, 7 * 24 * 3600));
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.opts.bucket,
        Key: key,
        ResponseContentDisposition: opts.contentDisposition,
      }),
      { expiresIn },
    );
  }

  async readableLocation(key: string): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.opts.bucket, Key: key }), {
      expiresIn: 3600,
    });
  }

  async sweepIncomplete(olderThanMs: number): Promise<number> {
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const res = await this.client
        .send(
          new ListMultipartUploadsCommand({
            Bucket: this.opts.bucket,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        )
        .catch((err: { name?: string }) => {
          // some stores cannot list uploads: their lifecycle rule is the only cleanup
          if (err.name === 'NotImplemented') return null;
          throw err;
        });
      if (!res) return removed;
      for (const u of res.Uploads ?? []) {
        if (!u.Key || !u.UploadId || !u.Initiated) continue;
        if (Date.now() - u.Initiated.getTime() < olderThanMs) continue;
        await this.client.send(
          new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: u.Key, UploadId: u.UploadId }),
        );
        removed += 1;
      }
      if (!res.IsTruncated) return removed;
      keyMarker = res.NextKeyMarker;
      uploadIdMarker = res.NextUploadIdMarker;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
