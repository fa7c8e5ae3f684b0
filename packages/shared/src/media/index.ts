// the S3 driver loads the AWS SDK: only createMediaStorage loads it, when configured
// The module's public face: what the apps and the other modules call. Anything else is internal.
export { MEDIA_REQUIRED_IN_PRODUCTION, mediaEnvSchema, mediaRetentionMs, refineMediaEnv } from './config';
export type { MediaEnv } from './config';
export { copyTaskMedia } from './copy';
export type { CopyOutcome, MediaCopyDeps } from './copy';
export { createMediaLinkSigner, createMediaStorage } from './create-storage';
export { deleteTaskMedia } from './delete';
export { MediaLinkSigner, VARIANT_OF_FILE } from './links';
export type { MediaVariant, TaskMediaLinks } from './links';
export { LocalMediaStorage } from './local-storage';
export { MediaSourceHosts } from './source-hosts';
export { copyBacklog } from './stats';
export { thumbnailKey, videoKey } from './storage';
export type { MediaStorage, PutOptions } from './storage';
export {
  expireUncopied,
  getTaskMedia,
  listCopiesDue,
  listExpiredMedia,
  markMediaGone,
  markMediaStored,
  storedMediaTotals,
} from './task-media';
export { firstFrameJpeg } from './thumbnail';
export {
  deletePlaygroundUpload,
  getServedUpload,
  listExpiredUploads,
  listServedUploads,
  markUploadGone,
  storePlaygroundUpload,
  UploadQuotaError,
  uploadFileName,
} from './uploads';
export type { UploadLimits } from './uploads';
export { MediaTooLargeError, MediaTypeError } from './storage';
export { STILL_IMAGE_TYPES, stillImageType } from './sniff';
