// Response shapes of the API: zod schemas, one module each (the OpenAPI document is generated from them),
// and the task object built from a task row.
// The module's public face: what the apps and the other modules call. Anything else is internal.
export { callbackDelivery } from './callbacks';
export { consoleObject, healthResponse } from './console';
export { errorResponse } from './error';
export { imagesResponse } from './images';
export { listOf } from './list';
export { modelObject } from './model';
export { toTaskObject } from './task-object';
export type { VideoTaskObject } from './task-object';
export { unixSeconds } from './unix';
export { usdAmount } from './usd';
export { videoTaskObject } from './video-task';
