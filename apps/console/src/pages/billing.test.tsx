import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../test/render';
import { BillingPage } from './Billing';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const TASK = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
const ORDER = 'top_01ARZ3NDEKTSV4RRFFQ69G5FAW';
const LEDGER = [
  {
    object: 'ledger_entry',
    id: '2',
    kind: 'charge',
    amount_usd: -0.25,
    amount_micro_usd: -250_000,
    ref: TASK,
    reason: null,
    details: { cause: 'video_task', model: 'wan2.6-i2v-flash-5s-720p' },
    created_at: 1_700_000_200,
  },
  {
    object: 'ledger_entry',
    id: '1',
    kind: 'topup',
    amount_usd: 7,
    amount_micro_usd: 7_000_000,
    ref: `alipay:${ORDER}`,
    reason: null,
    details: {
      cause: 'payment',
      provider: 'alipay',
      reference: ORDER,
      paid: { currency: 'CNY', amount_fen: 3500 },
    },
    created_at: 1_700_000_100,
  },
];

function withLedger(data: unknown[]) {
  fakeApi((_method, path) => {
    if (path === '/console/api/balance')
      return { status: 200, body: { object: 'balance', balance_usd: 6.72, balance_micro_usd: 6_720_000 } };
    if (path.startsWith('/console/api/ledger'))
      return { status: 200, body: { object: 'list', data, has_more: false, next_cursor: null } };
    return { status: 404 };
  });
}

describe('the billing page', () => {
  it('shows the balance above the ledger, with the way to top up', async () => {
    withLedger([]);
    renderAt('/console/billing', [{ path: '/console/billing', element: <BillingPage /> }]);
    await screen.findByText('$6.72');
    expect(screen.getByTestId('billing-balance').textContent).toBe('$6.72');
    expect(screen.getByRole('link', { name: 'Top up' }).getAttribute('href')).toBe('/console/topup');
  });

  it("links a charge to its task and a top-up to its order, each row's amount beside it on a phone", async () => {
    withLedger(LEDGER);
    renderAt('/console/billing', [{ path: '/console/billing', element: <BillingPage /> }]);
    const task = (await screen.findByText(TASK)).closest('a');
    expect(task?.getAttribute('href')).toBe(`/console/videos/${TASK}`);
    expect(screen.getByText(`alipay:${ORDER}`).closest('a')?.getAttribute('href')).toBe(
      `/console/topup?order=${ORDER}`,
    );
    // jsdom has no viewport: the phone's layout, the entry in one cell and its amount in the other
    const table = task?.closest('table') as HTMLElement;
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Reason', 'Amount']);
    const row = task?.closest('tr') as HTMLElement;
    expect(within(row).getByText('-$0.25')).toBeTruthy();
    expect(within(row).getByText(/Video task/)).toBeTruthy();
  });

  it("shows each usage record as one cell beside its exact cost on a phone, nothing scrolled sideways", async () => {
    fakeApi((_method, path) => {
      if (path === '/console/api/balance')
        return { status: 200, body: { object: 'balance', balance_usd: 6.72, balance_micro_usd: 6_720_000 } };
      if (path.startsWith('/console/api/models')) return { status: 200, body: { object: 'list', data: [] } };
      if (path.startsWith('/console/api/usage'))
        return {
          status: 200,
          body: {
            object: 'list',
            data: [
              {
                object: 'usage_record',
                id: '1',
                created_at: 1_700_000_200,
                ref: TASK,
                token: { id: 'tok_1', name: 'ci key', display_prefix: 'sk-abc' },
                model: 'wan2.6-i2v-flash-5s-720p',
                units: 1,
                cost_usd: 0.25,
                cost_micro_usd: 250_000,
                refunded_usd: 0.1234,
                refunded_micro_usd: 123_400,
                outcome: 'succeeded',
                latency_ms: 120,
                video: { duration_s: 5, resolution: '720p', processing_ms: 40_000 },
              },
            ],
            has_more: false,
            next_cursor: null,
          },
        };
      return { status: 404 };
    });
    renderAt('/console/billing?tab=usage', [{ path: '/console/billing', element: <BillingPage /> }]);
    const ref = await screen.findByText(TASK);
    const table = ref.closest('table') as HTMLElement;
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Model', 'Cost']);
    // no fixed width for the table to scroll across inside its card
    expect(table.style.width).toBe('');
    const row = ref.closest('tr') as HTMLElement;
    expect(within(row).getByText('$0.25')).toBeTruthy();
    expect(within(row).getByText(/\$0\.1234/)).toBeTruthy();
    expect(within(row).getByText(/wan2\.6-i2v-flash-5s-720p/)).toBeTruthy();
    expect(within(row).getByText(/5 s · 720p/)).toBeTruthy();
    expect(within(row).getByText(/ci key/)).toBeTruthy();
    expect(within(row).getByText('Succeeded')).toBeTruthy();
  });

  it('says a usage record\'s outcome in Chinese on a Chinese page', async () => {
    window.localStorage.setItem('mediagate.lang', 'zh');
    fakeApi((_method, path) => {
      if (path.startsWith('/console/api/usage'))
        return {
          status: 200,
          body: {
            object: 'list',
            data: [
              {
                object: 'usage_record',
                id: '1',
                created_at: 1_700_000_200,
                ref: 'img_1',
                token: null,
                model: 'image-model',
                units: 2,
                cost_usd: 0.08,
                cost_micro_usd: 80_000,
                refunded_usd: 0,
                refunded_micro_usd: 0,
                outcome: 'partial',
                latency_ms: 120,
                video: null,
              },
            ],
            has_more: false,
            next_cursor: null,
          },
        };
      if (path.startsWith('/console/api/models')) return { status: 200, body: { object: 'list', data: [] } };
      return { status: 404 };
    });
    renderAt('/console/billing?tab=usage', [{ path: '/console/billing', element: <BillingPage /> }]);
    const ref = await screen.findByText('img_1');
    const row = ref.closest('tr') as HTMLElement;
    expect(within(row).getByText('部分完成')).toBeTruthy();
    expect(within(row).queryByText('partial')).toBeNull();
  });
});
