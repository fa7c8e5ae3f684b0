import { describe, expect, it } from 'vitest';
import { customerLedgerLink, ledgerTarget, operatorLedgerLink } from './ledger-links';

const TASK = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const ORDER = 'top_01ARZ3NDEKTSV4RRFFQ69G5FAW';
const paid = { currency: 'CNY' as const, amount_fen: 3500 };

describe('where a ledger entry links', () => {
  it('names the task of a charge and of a task refund', () => {
    expect(ledgerTarget({ ref: TASK, details: { cause: 'video_task', model: 'm' } })).toEqual({ task: TASK });
    expect(
      ledgerTarget({ ref: TASK, details: { cause: 'task_failed', model: null, error_code: 'timeout' } }),
    ).toEqual({ task: TASK });
    expect(customerLedgerLink({ ref: TASK, details: null })).toBe(`/console/videos/${TASK}`);
    expect(operatorLedgerLink('acct_1')({ ref: TASK, details: null })).toBe(`/admin/tasks/${TASK}`);
  });

  it('names the order of a QR top-up, its bonus and its refund; a bank transfer has no page', () => {
    const topUp = {
      ref: `alipay:${ORDER}`,
      details: { cause: 'payment' as const, provider: 'alipay', reference: ORDER, paid },
    };
    expect(customerLedgerLink(topUp)).toBe(`/console/topup?order=${ORDER}`);
    expect(operatorLedgerLink('acct_1')(topUp)).toBe(`/admin/accounts/acct_1?tab=topups&order=${ORDER}`);
    expect(
      ledgerTarget({
        ref: 'rfd_1',
        details: { cause: 'topup_refund', provider: 'wechat', order_id: ORDER, refund_fen: 1, topup_fen: 2 },
      }),
    ).toEqual({ order: ORDER });
    // an entry from before details, read from its ref
    expect(ledgerTarget({ ref: `wechat:${ORDER}`, details: null })).toEqual({ order: ORDER });
    expect(
      customerLedgerLink({
        ref: 'bank_transfer:bank-77',
        details: { cause: 'payment', provider: 'bank_transfer', reference: 'bank-77', paid },
      }),
    ).toBeUndefined();
  });

  it('leaves image calls, grants and operators’ references as text', () => {
    expect(
      ledgerTarget({ ref: 'img_1', details: { cause: 'image_call', model: 'm', units: 1 } }),
    ).toBeUndefined();
    expect(ledgerTarget({ ref: null, details: { cause: 'signup_credit' } })).toBeUndefined();
    expect(ledgerTarget({ ref: 'INV-7', details: { cause: 'operator', note: 'x' } })).toBeUndefined();
  });
});
