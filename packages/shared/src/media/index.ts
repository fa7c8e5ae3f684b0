export * from './config';
export * from './copy';
export * from './create-storage';
export * from './delete';
export * from './links';
export * from './local-storage';
// the S3 driver loads the AWS SDK: only createMediaStorage loads it, when configured
export type { S3MediaStorage, S3StorageOptions } from './s3-storage';
export * from './sniff';
export * from './source-hosts';
export * from './stats';
export * from './storage';
export * from './task-media';
export * from './thumbnail';
