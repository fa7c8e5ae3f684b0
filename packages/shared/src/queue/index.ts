export * from './callbacks-queue';
export * from './catalog';
export * from './connection';
export * from './keys';
export * from './legacy';
export * from './media-queue';
export * from './stats';
export * from './video-queue';
