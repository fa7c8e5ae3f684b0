import { createAccount, hashPassword } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { call, type TestApi } from './harness';

export const PASSWORD = 'correct horse battery';

let n = 0;

/** An account with a password, logged in through the console; its default key and session token. */
export async function consoleAccount(
  api: TestApi,
  balanceUsd = 10,
): Promise<{ accountId: string; email: string; key: string; keyId: string; session: string }> {
  n += 1;
  const email = `console${n}-${Date.now()}@example.test`;
  const { accountId, key } = await createAccount(api.database.db, {
    email,
    initialCreditMicroUsd: usdToMicro(balanceUsd),
    passwordHash: await hashPassword(PASSWORD),
  });
  const res = await call(api, 'POST', '/console/api/login', { json: { email, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { accountId, email, key: key.key, keyId: key.id, session: token };
}

/** A console request with a session token (as a bearer). */
export function consoleCall(
  api: { url: string },
  method: string,
  path: string,
  session: string | undefined,
  json?: unknown,
): Promise<Response> {
  return call(api, method, path, {
    json,
    headers: session ? { authorization: `Bearer ${session}` } : {},
  });
}
