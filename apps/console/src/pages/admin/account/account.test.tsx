import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../../../test/render';
import { AccountsPage } from '../Accounts';
import { AccountDetailPage } from './AccountDetail';

beforeEach(() => {
  window.localStorage.clear();
  window.localStorage.setItem('mediagate.lang', 'en');
});

const ACCOUNT = {
  object: 'account',
  id: 'acct_1',
  email: 'buyer@example.test',
  status: 'active',
  role: 'user',
  balance_usd: 12.5,
  balance_micro_usd: 12_500_000,
  limits: { rpm: null, max_active_video_tasks: null },
  created_at: 1_700_000_000,
};
const page = <T,>(data: T[]) => ({ object: 'list', data, has_more: false, next_cursor: null, last_id: null });

describe("the operator's customer page", () => {
  it('shows the ledger, top-ups, keys, tasks and audit entries of the account, each label on its own field', async () => {
    const calls = fakeApi((_m, path) => {
      const p = path.split('?')[0];
      if (p === '/admin/api/accounts/acct_1') return { status: 200, body: ACCOUNT };
      if (p === '/admin/api/accounts/acct_1/ledger')
        return {
          status: 200,
          body: page([
            {
              object: 'ledger_entry',
              id: '9',
              kind: 'topup',
              amount_usd: 8,
              amount_micro_usd: 8_000_000,
              ref: 'bank_transfer:bank-77',
              reason: 'top-up of 8.00 USD via bank_transfer',
              details: {
                cause: 'payment',
                provider: 'bank_transfer',
                reference: 'bank-77',
                paid: { currency: 'USD', amount_micro_usd: 8_000_000 },
              },
              created_at: 1_700_000_100,
            },
          ]),
        };
      if (p === '/admin/api/accounts/acct_1/keys')
        return {
          status: 200,
          body: page([
            {
              object: 'token',
              id: 'key_1',
              name: 'production',
              display_prefix: 'sk-ab...yz',
              status: 'active',
              quota_usd: null,
              quota_micro_usd: null,
              used_usd: 1,
              used_micro_usd: 1_000_000,
              expires_at: null,
              allowed_models: null,
              allowed_ips: null,
              created_at: 1,
              last_used_at: null,
            },
          ]),
        };
      if (p === '/admin/api/tasks')
        return {
          status: 200,
          body: page([
            {
              id: 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
              task_id: 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
              object: 'video',
              model: 'wan2.6-i2v-flash-5s-720p',
              prompt: 'a boat',
              status: 'failed',
              progress: 0,
              created_at: 1_700_000_200,
              updated_at: 1_700_000_200,
              completed_at: 1_700_000_300,
              error: { code: 'upstream_error', message: 'failed' },
              metadata: {},
              account_id: 'acct_1',
              account_email: 'buyer@example.test',
              upstream_task_id: null,
              upstream_channel: null,
            },
          ]),
        };
      return { status: 200, body: page([]) };
    });
    const { container } = renderAt('/admin/accounts/acct_1', [
      { path: '/admin/accounts/:accountId', element: <AccountDetailPage /> },
    ]);
    expect(await screen.findByRole('heading', { name: 'buyer@example.test' })).toBeTruthy();
    // two forms have an amount and a reference: every id is unique, every label names its own field
    const ids = [...container.querySelectorAll('[id]')].map((e) => e.id);
    expect(ids.length).toBe(new Set(ids).size);
    const credit = screen.getByLabelText('Amount received (CNY)');
    expect(credit.id).toBe('bank-topup_amount_cny');
    expect(screen.getByLabelText('Amount (USD, negative to take)').id).toBe('adjustment_amount_usd');
    expect(screen.getByLabelText('Bank transaction id').id).toBe('bank-topup_reference');
    expect(screen.getByLabelText('Reference').id).toBe('adjustment_reference');

    expect(await screen.findByText('bank_transfer:bank-77')).toBeTruthy(); // the ledger tab, open first
    expect(screen.getByText('Top-up of $8.00 via bank transfer')).toBeTruthy();
    expect(screen.queryByText(/top-up of 8\.00 USD/)).toBeNull();
    fireEvent.click(screen.getByRole('tab', { name: 'API keys' }));
    const key = await screen.findByText('production', {}, { timeout: 5_000 });
    // on a phone (jsdom has no viewport) the key is one cell beside what it used, nothing scrolled sideways
    const keys = key.closest('table') as HTMLElement;
    expect(
      within(keys)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Name', 'Used / quota']);
    expect(within(key.closest('tr') as HTMLElement).getByText(/\$1\.00 \/ /)).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Tasks' }));
    const link = (await screen.findByText('task_01ARZ3NDEKTSV4RRFFQ69G5FAV', {}, { timeout: 5_000 })).closest(
      'a',
    );
    if (!link) throw new Error('the task id is not a link');
    expect(link.getAttribute('href')).toBe('/admin/tasks/task_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(within(link.closest('table') as HTMLElement).getByRole('button', { name: /Retry/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Audit log' }));
    expect(await screen.findByText('Operator actions on this account', {}, { timeout: 5_000 })).toBeTruthy();
    const paths = calls.map((c) => c.path);
    expect(paths).toContain('/admin/api/tasks?account_id=acct_1&limit=20');
    expect(paths.some((p) => p.startsWith('/admin/api/audit-log?account_id=acct_1'))).toBe(true);
  }, 90_000);

  it("links a ledger entry to its task's page and to its order in the top-ups tab, marked there", async () => {
    const TASK = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const ORDER = 'top_01ARZ3NDEKTSV4RRFFQ69G5FAW';
    const order = {
      object: 'topup',
      id: ORDER,
      status: 'credited',
      provider: 'alipay',
      amount_cny: 35,
      credit_usd: 7,
      bonus_usd: 0,
      refunded_cny: 0,
      channel: 'qr',
      qr_code: null,
      pay_url: null,
      expires_at: 1_700_001_000,
      created_at: 1_700_000_000,
      paid_at: 1_700_000_050,
      credited_at: 1_700_000_060,
      cancelled_at: null,
    };
    fakeApi((_m, path) => {
      const p = path.split('?')[0];
      if (p === '/admin/api/accounts/acct_1') return { status: 200, body: ACCOUNT };
      if (p === '/admin/api/accounts/acct_1/topups') return { status: 200, body: page([order]) };
      if (p === '/admin/api/accounts/acct_1/ledger')
        return {
          status: 200,
          body: page([
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
          ]),
        };
      return { status: 200, body: page([]) };
    });
    const { router } = renderAt('/admin/accounts/acct_1', [
      { path: '/admin/accounts/:accountId', element: <AccountDetailPage /> },
    ]);
    expect((await screen.findByText(TASK)).closest('a')?.getAttribute('href')).toBe(`/admin/tasks/${TASK}`);
    const toOrder = screen.getByText(`alipay:${ORDER}`).closest('a');
    expect(toOrder?.getAttribute('href')).toBe(`/admin/accounts/acct_1?tab=topups&order=${ORDER}`);
    fireEvent.click(toOrder as HTMLElement);
    expect(router.state.location.search).toBe(`?tab=topups&order=${ORDER}`);
    const id = await screen.findByText(ORDER, {}, { timeout: 5_000 });
    expect(screen.getByRole('tab', { name: 'Top-ups' }).getAttribute('aria-selected')).toBe('true');
    expect(id.closest('tr')?.className).toContain('mg-row-highlight');
    // another tab: the address says so, and no order is marked any more
    fireEvent.click(screen.getByRole('tab', { name: 'Ledger' }));
    expect(router.state.location.search).toBe('?tab=ledger');
  }, 60_000);
  it('shows and marks a linked order that is not on the first page of the top-ups tab', async () => {
    const ORDER = 'top_01ARZ3NDEKTSV4RRFFQ69G5FAW';
    const topUp = (id: string, amount_cny: number) => ({
      object: 'topup',
      id,
      status: 'credited',
      provider: 'alipay',
      amount_cny,
      credit_usd: amount_cny / 5,
      bonus_usd: 0,
      refunded_cny: 0,
      channel: 'qr',
      qr_code: null,
      pay_url: null,
      expires_at: 1_700_001_000,
      created_at: 1_700_000_000,
      paid_at: 1_700_000_050,
      credited_at: 1_700_000_060,
      cancelled_at: null,
    });
    const newer = topUp('top_01ARZ3NDEKTSV4RRFFQ69G5FZZ', 50);
    const calls = fakeApi((_m, path) => {
      const [p, query = ''] = path.split('?');
      if (p === '/admin/api/accounts/acct_1') return { status: 200, body: ACCOUNT };
      if (p === '/admin/api/accounts/acct_1/topups')
        // the first page holds a newer order only; the linked one is found by its id
        return new URLSearchParams(query).get('order') === ORDER
          ? { status: 200, body: page([topUp(ORDER, 35)]) }
          : { status: 200, body: { ...page([newer]), has_more: true, next_cursor: newer.id } };
      return { status: 200, body: page([]) };
    });
    renderAt(`/admin/accounts/acct_1?tab=topups&order=${ORDER}`, [
      { path: '/admin/accounts/:accountId', element: <AccountDetailPage /> },
    ]);
    const id = await screen.findByText(ORDER, {}, { timeout: 5_000 });
    expect(id.closest('tr')?.className).toContain('mg-row-highlight');
    expect(screen.getByText(newer.id).closest('tr')?.className).not.toContain('mg-row-highlight');
    expect(calls.some((c) => c.path.includes(`order=${ORDER}`))).toBe(true);
  }, 60_000);
});

describe("the operators' accounts list", () => {
  it('shows each account in one cell beside its balance on a phone (nothing scrolls sideways)', async () => {
    fakeApi((_m, path) =>
      path.startsWith('/admin/api/accounts') ? { status: 200, body: page([ACCOUNT]) } : { status: 404 },
    );
    renderAt('/admin/accounts', [{ path: '/admin/accounts', element: <AccountsPage /> }]);
    const link = await screen.findByRole('link', { name: 'buyer@example.test' });
    expect(link.getAttribute('href')).toBe('/admin/accounts/acct_1');
    const table = link.closest('table') as HTMLElement;
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['E-mail', 'Balance']);
    const row = link.closest('tr') as HTMLElement;
    expect(within(row).getByText('$12.50')).toBeTruthy();
    expect(within(row).getByText('acct_1')).toBeTruthy();
  });
});
