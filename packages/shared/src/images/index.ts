// The module's public face: what the apps and the other modules call. Anything else is internal.
export { imageCallEnvSchema, imageSettleAfterMs, refineImageCallEnv } from './image-call-config';
export { probeImageSize, sniffImageType, uploadToDataUrl } from './image-input';
export { coerceFormFields, parseImageRequest } from './image-request';
export type { ImageJob } from './image-request';
export { acceptedFields, imageRequestSchema } from './image-request-fields';
export { ImageService, createImageService } from './image-service';
export type { ImageDatum, ImageServiceDeps, ImagesResponse } from './image-service';
