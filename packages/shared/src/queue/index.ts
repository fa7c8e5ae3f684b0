export * from './callbacks-queue';
export * from './catalog';
export * from './connection';
export * from './video-queue';
export * from './media-queue';
