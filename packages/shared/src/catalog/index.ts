// The module's public face: what the apps and the other modules call. Anything else is internal.
export { catalogEnvSchema, loadCatalog } from './catalog-file';
export { maxImagesPerRequest } from './image-models';
export type { ImageModel } from './image-models';
export { ModelCatalog, defaultCatalog } from './model-catalog';
export type { CatalogModel } from './model-catalog';
export { toModelObject } from './model-object';
export type { ModelObject } from './model-object';
export { videoTaskPrice } from './video-models';
export type { VideoModel } from './video-models';
