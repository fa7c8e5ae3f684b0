import path from 'node:path';
import type { Logger } from '../log';
import type { MediaEnv } from './config';
import { DEV_MEDIA_SIGNING_SECRET } from './config';
import { MediaLinkSigner } from './links';
import { LocalMediaStorage } from './local-storage';
import type { MediaStorage } from './storage';

/** The storage driver the configuration names. */
export function createMediaStorage(env: MediaEnv): MediaStorage {
  if (env.MEDIA_DRIVER === 's3') {
    // loaded only here: the AWS SDK adds about half a second to every process start otherwise
    const { S3MediaStorage } = require('./s3-storage') as typeof import('./s3-storage');
    return new S3MediaStorage({
      bucket: env.MEDIA_S3_BUCKET ?? '',
      endpoint: env.MEDIA_S3_ENDPOINT,
      region: env.MEDIA_S3_REGION,
      accessKeyId: env.MEDIA_S3_ACCESS_KEY_ID,
      secretAccessKey: env.MEDIA_S3_SECRET_ACCESS_KEY,
      forcePathStyle: env.MEDIA_S3_FORCE_PATH_STYLE,
      publicBaseUrl: env.MEDIA_PUBLIC_BASE_URL,
    });
  }
  return new LocalMediaStorage(path.resolve(env.MEDIA_DIR));
}

/**
 * The link signer the configuration names. Without MEDIA_SIGNING_SECRET (allowed in development
 * and tests only, see refineMediaEnv) it signs with the public development secret and says so in
 * the log: anyone can forge such links.
 */
export function createMediaLinkSigner(env: MediaEnv, logger?: Pick<Logger, 'warn'>): MediaLinkSigner {
  if (!env.MEDIA_SIGNING_SECRET) {
    logger?.warn(
      'MEDIA_SIGNING_SECRET is not set: media links are signed with the public development secret, ' +
        'so anyone can forge them; set it (32+ characters) anywhere but on a development machine',
    );
  }
  return new MediaLinkSigner(env.MEDIA_SIGNING_SECRET ?? DEV_MEDIA_SIGNING_SECRET, env.PUBLIC_BASE_URL);
}
