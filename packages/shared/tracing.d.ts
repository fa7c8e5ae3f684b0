export * from './dist/tracing';
