export * from './catalog-file';
export * from './image-models';
export * from './model-catalog';
export * from './model-object';
export * from './video-models';
