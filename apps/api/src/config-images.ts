import { catalogEnvSchema } from '@mediagate/shared/catalog';
import { intFromEnv } from '@mediagate/shared/config';
import { imageCallEnvSchema } from '@mediagate/shared/images';
import { upstreamEnvSchema } from '@mediagate/shared/upstream';

/**
 * Variables of images, the model catalog and the upstream channels (api). Part of the api's
 * environment schema (config.ts).
 */
export const imagesEnvShape = {
  ...catalogEnvSchema.shape,
  ...upstreamEnvSchema.shape,
  /** IMAGE_CALL_TIMEOUT_MS (the deadline of one image call) and IMAGE_SETTLE_AFTER_MS (checked against it) */
  ...imageCallEnvSchema.shape,
  /** largest body of an image request: reference images travel inline as data URLs or files */
  IMAGE_BODY_LIMIT_BYTES: intFromEnv(50 * 1024 * 1024, 1024),
  UPSTREAM_CONNECT_TIMEOUT_MS: intFromEnv(5_000, 1),
  /** wait for the vendor's answer headers, and at most this long between body chunks */
  IMAGE_UPSTREAM_TIMEOUT_MS: intFromEnv(180_000, 1),
  /** largest vendor answer read (base64 images included); a larger one is refused */
  UPSTREAM_MAX_RESPONSE_BYTES: intFromEnv(64 * 1024 * 1024, 1024),
};
