import type { AddressInfo } from 'node:net';
import { createDatabase } from '@mediagate/shared/db';
import { createLogger } from '@mediagate/shared/log';
import express from 'express';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { errorHandler } from './errors';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('error envelope everywhere', () => {
  it('answers an unknown route with 404 in the error shape', async () => {
    const err = await expectError(await call(api, 'GET', '/v1/nothing-here'), 404, 'not_found');
    expect(err.message).toContain('/v1/nothing-here');
  });

  it('answers an unknown method on a known path with 404 in the error shape', async () => {
    await expectError(await call(api, 'DELETE', '/v1/videos'), 404, 'not_found');
  });

  it('echoes a sane x-request-id and makes one up otherwise', async () => {
    const mine = await call(api, 'GET', '/v1/nothing', { headers: { 'x-request-id': 'abc-123' } });
    expect(mine.headers.get('x-request-id')).toBe('abc-123');
    const bad = await call(api, 'GET', '/v1/nothing', { headers: { 'x-request-id': 'a b\tc' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves /healthz and /readyz', async () => {
    expect(
      await expectContract(await call(api, 'GET', '/healthz'), contractFor('get /healthz'), 200),
    ).toEqual({
      status: 'ok',
    });
    const ready = await call(api, 'GET', '/readyz');
    expect(await expectContract(ready, contractFor('get /readyz'), 200)).toMatchObject({
      status: 'ready',
      checks: { postgres: true, redis: true, migrations: true },
    });
  });

  describe('a NUL character, which Postgres cannot store in text or jsonb', () => {
    const IMG = 'https://93.184.216.34/cat.png';
    it.each([
      ['the prompt (a text column)', videoBody({ prompt: 'a\u0000b' })],
      [
        'metadata (a jsonb column)',
        videoBody({ metadata: { input: { img_url: IMG, negative_prompt: 'a\u0000b' } } }),
      ],
    ])('is a 400 invalid_request in %s of a video task, and nothing is charged', async (_n, json) => {
      const { key, accountId } = await api.account(5);
      const err = await expectError(
        await call(api, 'POST', '/v1/videos', { key, json }),
        400,
        'invalid_request',
      );
      expect(err.message).toContain('NUL');
      const { rows } = await api.database.pool.query(
        'select balance_micro_usd::int8 as b, (select count(*)::int from tasks where account_id = $1) as n from accounts where id = $1',
        [accountId],
      );
      expect(rows[0]).toEqual({ b: '5000000', n: 0 });
    });

    it('is a 400 invalid_request in a token name', async () => {
      const { session } = await consoleAccount(api);
      await expectError(
        await consoleCall(api, 'POST', '/console/api/tokens', session, { name: 'a\u0000b' }),
        400,
        'invalid_request',
      );
    });
  });
});

describe('Postgres refusing connections', () => {
  it('answers 503 service_unavailable with Retry-After when the server has no connection to give', async () => {
    // a real refusal (SQLSTATE 53300): a role allowed no connections at all
    const role = `mg_full_${Date.now().toString(36)}`;
    await api.database.pool.query(`create role ${role} login connection limit 0`);
    const url = new URL(api.database.pool.options.connectionString!);
    url.username = role;
    const refused = createDatabase(url.toString(), { max: 1 });
    const app = express();
    app.get('/probe', async (_req, _res, next) => {
      try {
        await refused.pool.query('select 1');
      } catch (err) {
        next(err);
      }
    });
    app.use(errorHandler(createLogger({ service: 'test', level: 'silent' })));
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((r) => server.once('listening', r));
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/probe`);
      await expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBeTruthy();
    } finally {
      server.close();
      await refused.close();
      await api.database.pool.query(`drop role ${role}`);
    }
  });
});
