export * from './alipay';
export * from './config';
export * from './types';
export * from './vendor';
export * from './wechatpay';
export * from './reconcile';
