export * from './accounts';
export * from './admin';
export * from './keys';
export * from './passwords';
export * from './registration';
export * from './sessions';
export * from './tokens';
export * from './video-slots';
