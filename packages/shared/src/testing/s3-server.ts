import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { S3MediaStorage } from '../media/s3-storage';
import { type RunningProcess, startProcess } from './processes';
import { freePort, waitFor } from './wait';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  process: RunningProcess;
  /** the environment that points the gateway's S3 driver at this server */
  env: Record<string, string>;
  /** the gateway's S3 driver on this server's bucket (close it when done) */
  storage: () => S3MediaStorage;
  stop: () => Promise<void>;
}

/**
 * Starts a real S3-protocol server (s3rver, a separate process speaking the S3 REST API over
 * HTTP, with SigV4 checks) on a free port with a fresh data directory and one bucket.
 */
export async function startTestS3Server(bucket = 'mediagate-test'): Promise<TestS3Server> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const port = await freePort();
  const proc = await startProcess({
    name: 's3rver',
    entry: require.resolve('s3rver/bin/s3rver.js'),
    args: ['-d', dir, '-a', '127.0.0.1', '-p', String(port), '--silent', '--configure-bucket', bucket],
    env: {},
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(endpoint).catch(() => null)) !== null, {
    timeoutMs: 15_000,
    what: 's3rver to listen',
    intervalMs: 50,
  });
  const env = {
    MEDIA_DRIVER: 's3',
    MEDIA_S3_ENDPOINT: endpoint,
    MEDIA_S3_BUCKET: bucket,
    MEDIA_S3_REGION: 'us-east-1',
    MEDIA_S3_ACCESS_KEY_ID: 'S3RVER',
    MEDIA_S3_SECRET_ACCESS_KEY: 'S3RVER',
    MEDIA_S3_FORCE_PATH_STYLE: 'true',
  };
  return {
    endpoint,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    process: proc,
    env,
    storage: () =>
      new S3MediaStorage({
        bucket,
        endpoint,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      }),
    stop: async () => {
      await proc.stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
