export * from './image-call-config';
export * from './image-input';
export * from './image-request';
export * from './image-request-fields';
export * from './image-service';
export * from './upstream-errors';
