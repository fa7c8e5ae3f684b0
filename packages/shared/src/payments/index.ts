export * from './alipay';
export * from './config';
export * from './reconcile';
export * from './types';
export * from './vendor';
export * from './wechatpay';
export * from './wechatpay-certificates';
