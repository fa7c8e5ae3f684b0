import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../test/render';
import { BillingPage } from './Billing';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

describe('the billing page', () => {
  it('shows the balance above the ledger, with the way to top up', async () => {
    fakeApi((_method, path) => {
      if (path === '/console/api/balance')
        return { status: 200, body: { object: 'balance', balance_usd: 6.72, balance_micro_usd: 6_720_000 } };
      if (path.startsWith('/console/api/ledger'))
        return { status: 200, body: { object: 'list', data: [], has_more: false } };
      return { status: 404 };
    });
    renderAt('/console/billing', [{ path: '/console/billing', element: <BillingPage /> }]);
    await screen.findByText('$6.72');
    expect(screen.getByTestId('billing-balance').textContent).toBe('$6.72');
    expect(screen.getByRole('link', { name: 'Top up' }).getAttribute('href')).toBe('/console/topup');
  });
});
