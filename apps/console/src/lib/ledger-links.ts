import type { LedgerEntry } from './ledger-words';

/** What a ledger entry's reference names, where the console has a page for it. */
export type LedgerTarget = { task: string } | { order: string };

/**
 * The video task or top-up order a ledger entry is about: a charge's or a task refund's ref is the
 * task id; a top-up's and its bonus's payment reference is the order (`top_...`; a bank transfer's
 * reference has no page); a top-up refund names its order. Older entries without details are read
 * from their ref (`alipay:top_...`).
 */
export function ledgerTarget(e: Pick<LedgerEntry, 'ref' | 'details'>): LedgerTarget | undefined {
  const d = e.details;
  if (d?.cause === 'payment') return d.reference.startsWith('top_') ? { order: d.reference } : undefined;
  if (d?.cause === 'topup_refund') return d.order_id ? { order: d.order_id } : undefined;
  if (!e.ref) return undefined;
  if (/^task_\w+$/.test(e.ref)) return { task: e.ref };
  const order = /^(?:alipay|wechat):(top_\w+)$/.exec(e.ref)?.[1];
  return order ? { order } : undefined;
}

/** Where a customer reads what an entry names: the task's page, or the order on the top-up page. */
export function customerLedgerLink(e: Pick<LedgerEntry, 'ref' | 'details'>): string | undefined {
  const target = ledgerTarget(e);
  if (!target) return undefined;
  return 'task' in target
    ? `/console/videos/${encodeURIComponent(target.task)}`
    : `/console/topup?order=${encodeURIComponent(target.order)}`;
}

/**
 * Where an operator reads what an entry of `accountId`'s ledger names: the task's operator page,
 * or the order in the account's top-ups tab.
 */
export const operatorLedgerLink =
  (accountId: string) =>
  (e: Pick<LedgerEntry, 'ref' | 'details'>): string | undefined => {
    const target = ledgerTarget(e);
    if (!target) return undefined;
    return 'task' in target
      ? `/admin/tasks/${encodeURIComponent(target.task)}`
      : `/admin/accounts/${encodeURIComponent(accountId)}?tab=topups&order=${encodeURIComponent(target.order)}`;
  };
