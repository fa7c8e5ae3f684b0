// Response shapes of the API: zod schemas, one module each (the OpenAPI document is generated from them),
// and the task object built from a task row.
export * from './callbacks';
export * from './console';
export * from './error';
export * from './images';
export * from './list';
export * from './model';
export * from './task-object';
export * from './unix';
export * from './usd';
export * from './video-task';
