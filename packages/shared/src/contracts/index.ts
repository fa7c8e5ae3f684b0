// Response shapes of the API as zod schemas, one module each; the OpenAPI document is generated from them.
export * from './callbacks';
export * from './console';
export * from './error';
export * from './images';
export * from './list';
export * from './model';
export * from './unix';
export * from './video-task';
