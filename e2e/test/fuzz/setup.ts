import { waitFor } from '@mediagate/shared/testing';
import { CONTAINER_HEAP, type Stack, startStack } from '../stack';
import type { Known } from './endpoints';
import { callJson, FUZZ_ENV, login, send } from './kit';

const USER = { email: 'fuzz-user@example.test', password: 'fuzz-user-password' };

/**
 * A stack for fuzzing and what the fuzzer needs to reach past validation: an API key with money,
 * a console user registered through the API (code from the development mailer's log), the
 * operator's session, an account for the operators' endpoints to act on, and real ids of tasks
 * (succeeded with a callback delivery, failed, another account's), tokens and models.
 */
export async function startFuzzStack(): Promise<{ stack: Stack; known: Known }> {
  const stack = await startStack({
    env: { ...FUZZ_ENV, SSRF_ALLOW_CIDRS: '127.0.0.1/32' },
    // the API's memory ceiling (FUZZ_RSS_CEILING_BYTES) holds for the API as it is deployed
    apiNodeArgs: [...CONTAINER_HEAP],
  });
  try {
    return { stack, known: await prepare(stack) };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON answer, read field by field
async function registerUser(stack: Stack, email: string, password: string): Promise<any> {
  await callJson(stack, 'POST', '/console/api/register', undefined, { email, password });
  const code = await waitFor(
    () =>
      new RegExp(`dev mail to ${email}: Your mediagate verification code: (\\d{6})`).exec(
        stack.apiProcess.output(),
      )?.[1],
    { timeoutMs: 15_000, what: `the verification code of ${email} in the API log` },
  );
  return callJson(stack, 'POST', '/console/api/register/verify', undefined, { email, code, password });
}

async function prepare(stack: Stack): Promise<Known> {
  const key = stack.newKey(1_000);
  const victim = stack.cli(['account:create', '--email', 'fuzz-victim@example.test', '--balance-usd', '5']);
  const victimAccountId = /created account (\S+),/.exec(victim.stderr)?.[1];
  if (!victimAccountId) throw new Error(`could not create the victim account: ${victim.stderr}`);
  const victimKey = victim.stdout.trim();

  const user = await registerUser(stack, USER.email, USER.password);
  // a registration left pending, for the resend and verify routes
  await callJson(stack, 'POST', '/console/api/register', undefined, {
    email: 'fuzz-pending@example.test',
    password: 'a long enough password',
  });
  const admin = await waitFor(
    () => login(stack, FUZZ_ENV.ADMIN_EMAIL!, FUZZ_ENV.ADMIN_PASSWORD!).catch(() => undefined),
    { timeoutMs: 15_000, what: 'the admin account to be set up' },
  );
  const adminAccount = await callJson(stack, 'GET', '/console/api/me', admin);

  // a task that succeeds with a callback (its delivery stays pending: no dispatcher runs)
  const callbackUrl = 'http://127.0.0.1:9/fuzz-callback';
  const video = {
    model: 'wan2.6-i2v-flash-5s-720p',
    prompt: 'a paper boat',
    metadata: { input: { img_url: 'https://93.184.216.34/boat.png' }, callback_url: callbackUrl },
  };
  const done = (await callJson(stack, 'POST', '/v1/videos', key, video)).id as string;
  const deliveryId = await waitFor(
    async () =>
      (await callJson(stack, 'GET', `/v1/videos/${done}/callbacks`, key)).data[0]?.id as string | undefined,
    { timeoutMs: 30_000, what: 'the callback delivery of the first task' },
  );
  // a task the upstream fails (what an operator may retry)
  await stack.sim('POST', '/video-outcomes', {
    outcome: 'FAILED',
    code: 'InternalError',
    message: 'fuzz',
    count: 1,
  });
  const failed = (await callJson(stack, 'POST', '/v1/videos', key, video)).id as string;
  await waitFor(async () => (await callJson(stack, 'GET', `/v1/videos/${failed}`, key)).status === 'failed', {
    timeoutMs: 30_000,
    what: 'the second task to fail',
  });
  const foreign = (await callJson(stack, 'POST', '/v1/videos', victimKey, video)).id as string;

  const tokenIds: string[] = [];
  for (const name of ['one', 'two', 'three']) {
    tokenIds.push((await callJson(stack, 'POST', '/console/api/tokens', user.session.token, { name })).id);
  }
  const models = (await callJson(stack, 'GET', '/v1/models', key)).data.map((m: { id: string }) => m.id);
  const health = await send(stack.apiUrl, { method: 'GET', path: '/readyz', headers: {} });
  if (health.status !== 200) throw new Error(`the stack is not ready: ${health.text}`);

  return {
    key,
    session: user.session.token,
    admin,
    email: USER.email,
    password: USER.password,
    victimAccountId,
    paymentSecret: FUZZ_ENV.PAYMENT_DEV_SECRET!,
    ids: {
      taskId: [done, failed, foreign],
      deliveryId: [deliveryId],
      tokenId: tokenIds,
      accountId: [victimAccountId, adminAccount.id],
      modelId: models,
      queue: ['video-tasks', 'callbacks'],
      provider: ['dev'],
      callbackUrl: [callbackUrl],
      characterId: ['char_123'],
      endpointId: ['ep_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      file: ['video.mp4', 'thumbnail.jpg'],
      uploadId: [`upl_${'A'.repeat(32)}`],
    },
  };
}
