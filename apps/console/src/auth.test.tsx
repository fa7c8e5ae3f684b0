import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../test/render';
import { RequireSession } from './auth';

beforeEach(() => {
  window.localStorage.clear();
  window.localStorage.setItem('mediagate.lang', 'en');
});

const routes = [
  {
    path: '/console/keys',
    element: (
      <RequireSession>
        <p>the keys page</p>
      </RequireSession>
    ),
  },
  { path: '/login', element: <p>the sign-in page</p> },
];

describe('who is signed in', () => {
  it('sends an anonymous visitor to sign in after a 200 answer, never a 401', async () => {
    const calls = fakeApi((_m, path) =>
      path === '/console/api/session'
        ? { status: 200, body: { object: 'session_state', signed_in: false, account: null } }
        : {
            status: 401,
            body: { error: { message: 'no', type: 'authentication_error', code: 'invalid_session' } },
          },
    );
    const { router } = renderAt('/console/keys', routes);
    expect(await screen.findByText('the sign-in page')).toBeTruthy();
    expect(router.state.location.search).toBe(`?next=${encodeURIComponent('/console/keys')}`);
    expect(calls.map((c) => c.path)).toEqual(['/console/api/session']);
  });

  it('shows the page to a signed-in account', async () => {
    fakeApi(() => ({
      status: 200,
      body: {
        object: 'session_state',
        signed_in: true,
        account: { object: 'account', id: 'acct_1', email: 'a@example.test', role: 'user' },
      },
    }));
    renderAt('/console/keys', routes);
    expect(await screen.findByText('the keys page')).toBeTruthy();
  });
});
