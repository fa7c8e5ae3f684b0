import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiError, fakeApi, renderAt } from '../../test/render';
import { ForgotPasswordPage } from './ForgotPassword';
import { KeysPage } from './keys/Keys';
import { LoginPage } from './Login';
import { SignupPage } from './Signup';
import { TopUpPage } from './topup/TopUp';

beforeEach(() => {
  window.localStorage.clear();
  window.localStorage.setItem('mediagate.lang', 'en');
});

const type = (label: RegExp | string, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('sign-in page', () => {
  it('shows the API error in words and stays on the page', async () => {
    fakeApi(() => apiError(401, 'invalid_credentials', 'Wrong e-mail or password.'));
    renderAt('/login', [{ path: '/login', element: <LoginPage /> }]);
    type('E-mail', 'a@example.test');
    type('Password', 'nope-nope');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Wrong e-mail or password.')).toBeTruthy();
    expect(screen.getByText('Please check')).toBeTruthy();
    // the code is for whoever opens the details
    expect(screen.queryByText(/invalid_credentials/)).toBeNull();
    fireEvent.click(screen.getByText('Details'));
    expect(screen.getByText(/\(invalid_credentials\)/)).toBeTruthy();
  });

  it('goes to the page it was sent from after signing in, never to another site', async () => {
    const calls = fakeApi((_m, path) =>
      path === '/console/api/login'
        ? {
            status: 200,
            body: { object: 'session', token: 'cs_x', expires_at: 1, account_id: 'acct_1', role: 'user' },
          }
        : { status: 200, body: {} },
    );
    const { router } = renderAt('/login?next=%2Fconsole%2Fbilling', [
      { path: '/login', element: <LoginPage /> },
      { path: '/console/billing', element: <p>billing page</p> },
    ]);
    type('E-mail', 'a@example.test');
    type('Password', 'long-enough');
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('billing page')).toBeTruthy();
    expect(calls[0]).toMatchObject({
      method: 'POST',
      path: '/console/api/login',
      body: { email: 'a@example.test', password: 'long-enough' },
    });
    expect(router.state.location.pathname).toBe('/console/billing');
  });
});

describe('sign-up page', () => {
  it('rates the password, sends the code, counts the resend cool-down down, and shows the default key once', async () => {
    const calls = fakeApi((_m, path) => {
      if (path === '/console/api/register')
        return {
          status: 202,
          body: {
            object: 'registration',
            email: 'n@example.test',
            status: 'code_sent',
            expires_in: 600,
            resend_in: 2,
          },
        };
      if (path === '/console/api/register/resend')
        return apiError(429, 'rate_limit_exceeded', 'A code was sent a moment ago.');
      if (path === '/console/api/register/verify')
        return {
          status: 201,
          body: {
            object: 'account',
            id: 'acct_1',
            email: 'n@example.test',
            balance_usd: 0.05,
            balance_micro_usd: 50000,
            api_key: { id: 'key_1', name: 'default', key: 'sk-secretvalue', display_prefix: 'sk-se...ue' },
            session: { token: 'cs_1', expires_at: 1 },
          },
        };
      return { status: 404, body: {} };
    });
    renderAt('/signup', [{ path: '/signup', element: <SignupPage /> }]);
    type('E-mail', 'n@example.test');
    type(/^Password$/, 'password1');
    // the meter follows the form's value, which the form publishes after the change
    await waitFor(() => expect(screen.getByTestId('password-strength').textContent).toMatch(/Weak/));
    type(/^Password$/, 'Tr0ub4dor&3x');
    await waitFor(() => expect(screen.getByTestId('password-strength').textContent).toMatch(/Good|Strong/));
    type('Password again', 'Tr0ub4dor&3x');
    fireEvent.click(screen.getByRole('button', { name: 'Send the verification code' }));
    expect(await screen.findByText(/We sent a 6-digit code to n@example.test/)).toBeTruthy();
    const resend = screen.getByRole('button', { name: /Send a new code in 2 s/ });
    expect((resend as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send a new code' })).toBeTruthy(), {
      timeout: 10_000,
    });
    fireEvent.click(screen.getByRole('button', { name: 'Send a new code' }));
    expect(await screen.findByText('Too many attempts. Wait a moment and try again.')).toBeTruthy();
    expect(screen.getByText('Please wait')).toBeTruthy();

    type('Verification code', '123456');
    fireEvent.click(screen.getByRole('button', { name: 'Create the account' }));
    expect(await screen.findByText('Your account is ready')).toBeTruthy();
    expect(screen.getByTestId('secret-value').textContent).toContain('sk-secretvalue');
    expect(calls.find((c) => c.path === '/console/api/register/verify')?.body).toEqual({
      email: 'n@example.test',
      password: 'Tr0ub4dor&3x',
      code: '123456',
    });
    // nothing secret is kept by the page
    expect(Object.keys(window.localStorage)).toEqual(['mediagate.lang']);
  });
});

describe('forgot-password page', () => {
  it('asks for the code, then resets with it and shows a wrong code in words', async () => {
    let tries = 0;
    fakeApi((_m, path) => {
      if (path === '/console/api/password/forgot') return { status: 202, body: { object: 'password_reset' } };
      tries += 1;
      return tries === 1
        ? apiError(
            400,
            'invalid_request',
            'The reset code is wrong, or no reset was asked for this e-mail address.',
            'code',
          )
        : { status: 200, body: { object: 'password_reset', status: 'reset' } };
    });
    renderAt('/forgot-password', [{ path: '/forgot-password', element: <ForgotPasswordPage /> }]);
    type('E-mail', 'r@example.test');
    fireEvent.click(screen.getByRole('button', { name: 'Send the reset code' }));
    type(await screen.findByLabelText('Reset code').then(() => 'Reset code'), '000000');
    type('New password', 'a-new-password-9');
    // typed twice: a difference is caught before anything is sent
    type('Password again', 'a-new-password-8');
    fireEvent.click(screen.getByRole('button', { name: 'Set the new password' }));
    expect(await screen.findByText('The two passwords differ.')).toBeTruthy();
    type('Password again', 'a-new-password-9');
    fireEvent.click(screen.getByRole('button', { name: 'Set the new password' }));
    expect(await screen.findByText(/This code is wrong or has expired/)).toBeTruthy();
    type('Reset code', '123456');
    fireEvent.click(screen.getByRole('button', { name: 'Set the new password' }));
    expect(await screen.findByText('Your password has been reset')).toBeTruthy();
  });

  it('offers to delete every API key with the reset, sends it only when ticked, and says how many went', async () => {
    const calls = fakeApi((_m, path, body) => {
      if (path === '/console/api/password/forgot') return { status: 202, body: { object: 'password_reset' } };
      const revoke = (body as { revoke_keys?: boolean }).revoke_keys;
      return {
        status: 200,
        body: { object: 'password_reset', status: 'reset', keys_revoked: revoke ? 2 : 0 },
      };
    });
    renderAt('/forgot-password', [{ path: '/forgot-password', element: <ForgotPasswordPage /> }]);
    type('E-mail', 'r@example.test');
    fireEvent.click(screen.getByRole('button', { name: 'Send the reset code' }));
    type(await screen.findByLabelText('Reset code').then(() => 'Reset code'), '123456');
    type('New password', 'a-new-password-9');
    type('Password again', 'a-new-password-9');
    fireEvent.click(screen.getByLabelText('Also delete every API key of the account'));
    fireEvent.click(screen.getByRole('button', { name: 'Set the new password' }));
    expect(await screen.findByText(/2 API keys were deleted/)).toBeTruthy();
    expect(calls.find((c) => c.path === '/console/api/password/reset')?.body).toMatchObject({
      code: '123456',
      revoke_keys: true,
    });
  });
});

describe('keys page', () => {
  it('lists keys, shows an empty state, and a failed list in words', async () => {
    fakeApi((_m, path) =>
      path === '/console/api/tokens'
        ? apiError(503, 'service_unavailable', 'The database is away.')
        : { status: 404 },
    );
    renderAt('/console/keys', [{ path: '/console/keys', element: <KeysPage /> }]);
    expect(
      await screen.findByText('The service is busy or under maintenance. Try again in a moment.'),
    ).toBeTruthy();
    fireEvent.click(screen.getByText('Details'));
    expect(screen.getByText(/The database is away\./)).toBeTruthy();
    expect(screen.getByText('No keys yet.')).toBeTruthy();
  });

  it("says in words, not the server's, that the model list could not be read", async () => {
    fakeApi((method, path) => {
      if (path === '/console/api/tokens' && method === 'GET')
        return { status: 200, body: { object: 'list', data: [] } };
      if (path === '/console/api/models')
        return apiError(503, 'service_unavailable', 'The database is away.');
      return { status: 404 };
    });
    renderAt('/console/keys', [{ path: '/console/keys', element: <KeysPage /> }]);
    fireEvent.click(await screen.findByRole('button', { name: /Create a key/ }));
    const models = await screen.findByLabelText(/^Models/);
    await act(async () => {
      fireEvent.mouseDown(models);
    });
    expect(
      await screen.findByText('The service is busy or under maintenance. Try again in a moment.'),
    ).toBeTruthy();
    expect(screen.queryByText(/The database is away/)).toBeNull();
  });

  it('sends only the limits that were filled in when creating a key, and shows the key once', async () => {
    const calls = fakeApi((method, path) => {
      if (path === '/console/api/tokens' && method === 'GET')
        return { status: 200, body: { object: 'list', data: [] } };
      if (path === '/console/api/models') return { status: 200, body: { object: 'list', data: [] } };
      if (path === '/console/api/tokens' && method === 'POST')
        return {
          status: 201,
          body: { object: 'token', id: 'key_1', name: 'ci', key: 'sk-newkey', status: 'active' },
        };
      return { status: 404 };
    });
    renderAt('/console/keys', [{ path: '/console/keys', element: <KeysPage /> }]);
    fireEvent.click(await screen.findByRole('button', { name: /Create a key/ }));
    type('Name', 'ci');
    type(/^Quota \(USD\)/, '5');
    await act(async () => {
      fireEvent.click(screen.getAllByRole('button', { name: /Create a key/ }).at(-1)!);
    });
    expect(await screen.findByText('sk-newkey')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'ci', quota_usd: 5 });
  });
});

describe('top-up page', () => {
  it('says in words that top-ups are unavailable when the API has no such route', async () => {
    fakeApi(() => apiError(404, 'not_found', 'Unknown route: GET /console/api/topups/options.'));
    renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
    expect(await screen.findByText('Top-ups are not available')).toBeTruthy();
    expect(screen.queryByText(/Unknown route/)).toBeNull();
    fireEvent.click(screen.getByText('Details'));
    expect(screen.getByText(/Unknown route/)).toBeTruthy();
  });

  const withBank = (bank: Record<string, string | null>) =>
    fakeApi((_method, path) => {
      if (path === '/console/api/topups/options')
        return {
          status: 200,
          body: {
            providers: ['alipay'],
            cny_per_usd: 5,
            min_amount_cny: 35,
            bonus_threshold_cny: 500,
            bonus_percent: 10,
            bank_transfer: {
              reference: 'MG-REF-2',
              beneficiary: null,
              bank: null,
              account_number: null,
              ...bank,
            },
          },
        };
      return { status: 200, body: { object: 'list', data: [] } };
    });

  it('with no bank account published, says whom to ask for it and still shows their reference', async () => {
    withBank({ contact: 'payments@example.test' });
    renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
    expect(await screen.findByText('MG-REF-2')).toBeTruthy();
    expect(screen.getByText(/is not published here\. Ask us for it/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'payments@example.test' }).getAttribute('href')).toBe(
      'mailto:payments@example.test',
    );
    expect(screen.queryByText('Account number')).toBeNull();
    expect(screen.queryByText('Beneficiary')).toBeNull();
  });

  it('with neither bank account nor contact, says transfers are not offered (no reference to send)', async () => {
    withBank({ contact: null });
    renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
    expect(await screen.findByText('Bank transfers are not offered at the moment.')).toBeTruthy();
    expect(screen.queryByText('MG-REF-2')).toBeNull();
    expect(screen.queryByText(/ask us/i)).toBeNull();
  });

  it('with the bank account published, shows it with the reference and the contact', async () => {
    withBank({
      beneficiary: 'mediagate Ltd',
      account_number: '6222 0000',
      contact: 'https://example.test/help',
    });
    renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
    expect(await screen.findByText('6222 0000')).toBeTruthy();
    expect(screen.getByText('MG-REF-2')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'https://example.test/help' })).toBeTruthy();
  });

  it('shows the minimum and the bonus before paying, then the QR code, and updates itself when credited', async () => {
    let polls = 0;
    const order = {
      object: 'topup',
      id: 'top_1',
      status: 'created',
      provider: 'alipay',
      amount_cny: 500,
      credit_usd: 100,
      bonus_usd: 10,
      qr_code: 'https://qr.alipay.example/abc',
      expires_at: 1_900_000_000,
      created_at: 1_800_000_000,
      paid_at: null,
      credited_at: null,
    };
    const calls = fakeApi((method, path) => {
      if (path === '/console/api/topups/options')
        return {
          status: 200,
          body: {
            providers: ['alipay', 'wechat'],
            cny_per_usd: 5,
            min_amount_cny: 35,
            bonus_threshold_cny: 500,
            bonus_percent: 10,
            bank_transfer: {
              reference: 'MG-REF-1',
              beneficiary: 'mediagate Ltd',
              bank: 'Bank',
              account_number: '123',
            },
          },
        };
      if (path === '/console/api/topups' && method === 'GET')
        return { status: 200, body: { object: 'list', data: [] } };
      if (path === '/console/api/topups' && method === 'POST') return { status: 201, body: order };
      if (path === '/console/api/topups/top_1') {
        polls += 1;
        return {
          status: 200,
          body: polls >= 2 ? { ...order, status: 'credited', credited_at: 1_800_000_100 } : order,
        };
      }
      return { status: 200, body: {} };
    });
    renderAt('/console/topup', [{ path: '/console/topup', element: <TopUpPage /> }]);
    expect(await screen.findByText('MG-REF-1')).toBeTruthy();
    type('Amount (CNY)', '20');
    expect(await screen.findAllByText('The least top-up is ¥35.00.')).not.toHaveLength(0);
    // exact to the micro-USD, and why there is no bonus
    type('Amount (CNY)', '499.99');
    expect(await screen.findByText('You get $99.998 of credit (¥5 = $1).')).toBeTruthy();
    expect(
      screen.getByText('No bonus on this amount: top up ¥500.00 or more at once for a 10% bonus.'),
    ).toBeTruthy();
    type('Amount (CNY)', '500');
    expect(await screen.findByText('+ 10% bonus: $10.00, $110.00 in all.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Show the QR code' }));
    expect(await screen.findByText('Scan with Alipay')).toBeTruthy();
    expect(screen.getByText('¥500.00 for $100.00 of credit')).toBeTruthy();
    expect(screen.getByText('+ 10% bonus: $10.00, $110.00 in all.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ amount_cny: 500, provider: 'alipay' });
    expect(await screen.findByText('Payment received', {}, { timeout: 8_000 })).toBeTruthy();
    expect(screen.getByText('$110.00 has been added to your balance.')).toBeTruthy();
    expect(screen.getByText('It includes the 10% bonus: $10.00.')).toBeTruthy();
  });
});
