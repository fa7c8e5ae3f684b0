export * from './processes';
export * from './services';
export * from './stack';
export * from './upstream-sim';
export * from './wait';
export * from './s3-server';
