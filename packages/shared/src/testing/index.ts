export * from './processes';
export * from './s3-server';
export * from './services';
export * from './stack';
export * from './streamed-form';
export * from './upstream-sim';
export * from './wait';
