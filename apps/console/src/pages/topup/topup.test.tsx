import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../../test/render';
import { TopUpPage } from './TopUp';

beforeEach(() => {
  window.localStorage.clear();
  window.localStorage.setItem('mediagate.lang', 'en');
});

const OPTIONS = {
  providers: ['alipay'],
  cny_per_usd: 5,
  min_amount_cny: 35,
  bonus_threshold_cny: 500,
  bonus_percent: 10,
  bank_transfer: {
    reference: 'MG-REF-1',
    beneficiary: null,
    bank: null,
    account_number: null,
    contact: null,
  },
};
const ORDER = {
  object: 'topup',
  id: 'top_1',
  status: 'created',
  provider: 'alipay',
  amount_cny: 35,
  credit_usd: 7,
  bonus_usd: 0,
  refunded_cny: 0,
  channel: 'qr',
  qr_code: 'https://qr.alipay.example/abc',
  pay_url: null,
  expires_at: 1_900_000_000,
  created_at: 1_800_000_000,
  paid_at: null,
  credited_at: null,
  cancelled_at: null,
};

function withOrder(cancel: { status: number; body?: unknown }) {
  let order: typeof ORDER = ORDER;
  const calls = fakeApi((method, path) => {
    if (path === '/console/api/topups/options') return { status: 200, body: OPTIONS };
    if (path === '/console/api/topups' && method === 'GET')
      return { status: 200, body: { object: 'list', data: [order], has_more: false, next_cursor: null } };
    if (path === '/console/api/topups/top_1') return { status: 200, body: order };
    if (path === '/console/api/topups/top_1/cancel' && method === 'POST') {
      if (cancel.status === 200) order = { ...ORDER, status: 'cancelled' };
      return cancel;
    }
    return { status: 404 };
  });
  renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
  return calls;
}

const historyRow = async () => {
  const history = (await screen.findByText('Recent top-ups')).closest('.ant-card') as HTMLElement;
  const tag = await within(history).findByText('Waiting for payment');
  return tag.closest('tr') as HTMLElement;
};

describe("the top-up page's orders left waiting", () => {
  it('cancels one from its row of the history', async () => {
    const calls = withOrder({ status: 200, body: { ...ORDER, status: 'cancelled' } });
    const row = await historyRow();
    fireEvent.click(within(row).getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText('The top-up was cancelled.')).toBeTruthy();
    const history = screen.getByText('Recent top-ups').closest('.ant-card') as HTMLElement;
    expect(await within(history).findByText('Cancelled')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([
      '/console/api/topups/top_1/cancel',
    ]);
    expect(within(history).queryByRole('button', { name: 'Cancel' })).toBeNull();
  });

  it('shows its QR code again to pay it', async () => {
    withOrder({ status: 200 });
    const row = await historyRow();
    fireEvent.click(within(row).getByRole('button', { name: 'Continue paying' }));
    expect(await screen.findByText('Scan with Alipay')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Cancel this payment' })).toBeTruthy();
    // the order on show is marked in the history, its actions are the panel's
    await waitFor(() => expect(row.className).toContain('mg-row-highlight'));
    expect(within(row).queryByRole('button', { name: 'Continue paying' })).toBeNull();
  });

  it('says in words when the payer is paying and the cancel is refused', async () => {
    withOrder({
      status: 409,
      body: {
        error: { message: 'paying', type: 'invalid_request_error', code: 'conflict', param: 'status' },
      },
    });
    const row = await historyRow();
    fireEvent.click(within(row).getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByText(/This payment cannot be cancelled now/)).toBeTruthy();
  });
});
