// The module's public face: what the apps and the other modules call. Anything else is internal.
export { recordBankTransfer } from './bank-transfers';
export type { BankTransferResult } from './bank-transfers';
export { adjustBalance, chargeForCall, findLedgerMismatches, refundCall, usdToMicro } from './ledger';
export type { ChargeArgs, RefundArgs } from './ledger';
export { checkLedger, ledgerCheckStatus } from './ledger-check';
export type { LedgerCheckResult } from './ledger-check';
export { refuseUnaffordable } from './preflight';
export { settleImageCall, sweepUnsettledImageCalls } from './settlement';
export type { Settlement, SweptCall } from './settlement';
export { createUsageRecorder, listLedger, listUsage, spendByDayAndModel } from './statements';
export type { DailySpend, FinishedCall, Page, UsageRecorder } from './statements';
export {
  bankTransferReference,
  findAccountByTransferReference,
  getTopUpOrder,
  insertTopUpOrder,
  listTopUpOrders,
} from './topup-orders';
export {
  TopUpRefundRefusedError,
  failTopUpRefund,
  getTopUpRefund,
  listPendingTopUpRefunds,
  listTopUpRefunds,
  listTopUpRefundsByStatus,
  refundedShareMicroUsd,
  reserveTopUpRefund,
  succeedTopUpRefund,
} from './topup-refunds';
export type { RefundSuccessResult } from './topup-refunds';
export { TopUpTooSmallError, UnknownAccountError, recordTopUp } from './topups';
export type { TopUpPolicy, TopUpResult } from './topups';
export { settleVideoUsage } from './video-usage';
export type { ReportedVideoUsage, VideoUsageSettlement } from './video-usage';
