export * from './ark-images';
export * from './channel-pool';
export * from './channels-config';
export * from './dashscope-image-edit';
export * from './dashscope-video';
export * from './vendor-http';
