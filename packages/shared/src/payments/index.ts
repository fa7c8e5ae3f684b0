// The module's public face: what the apps and the other modules call. Anything else is internal.
export { alipayTime, parseAlipayTime } from './alipay';
export {
  createQrPaymentProviders,
  paymentsEnvShape,
  refinePaymentNotifyUrl,
  refinePaymentsEnv,
} from './config';
export { DEV_SIGNATURE_HEADER, createDevPaymentProvider, signDevPayment } from './dev';
export { TopUpNotCancellableError, TopUpPayerPayingError, cancelTopUpOrder } from './cancel';
export {
  TooManyOpenTopUpsError,
  TooManyTopUpsPerHourError,
  TopUpOrderRefusedError,
  createTopUpOrder,
  settleTopUpPayment,
} from './orders';
export type { TopUpPaymentOutcome } from './orders';
export { reconcileTopUpOrders, syncTopUpOrder } from './reconcile';
export {
  applyRefundReport,
  reconcileTopUpRefunds,
  refundTopUpOrder,
  settleRefundNotification,
} from './refunds';
export type { RefundNotificationOutcome, RefundReconcileResult, RefundReportOutcome } from './refunds';
export type { TopUpReconcileResult } from './reconcile';
export { PaymentProviderError, PaymentVerificationError, QR_PROVIDERS, fenToYuan, yuanToFen } from './types';
export type {
  AccountPaymentNotification,
  AccountPaymentProvider,
  NotificationAnswer,
  PaymentProvider,
  NotifiedRefund,
  QrPaymentProvider,
  RefundReport,
  VerifiedNotification,
} from './types';
export {
  alipaySignContent,
  rsa2Sign,
  signAlipayNotification,
  verifyAlipayRequest,
  verifyWechatRequest,
  wechatEncryptResource,
  wechatSignedHeaders,
} from './vendor';
export { decryptWechatResource, wechatTime } from './wechatpay';
export type { WechatPayProvider } from './wechatpay';
