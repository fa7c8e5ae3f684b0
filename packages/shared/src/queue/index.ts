export * from './callbacks-queue';
export * from './catalog';
export * from './connection';
export * from './media-queue';
export * from './video-queue';
