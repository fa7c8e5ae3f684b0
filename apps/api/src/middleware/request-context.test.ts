import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { waitFor } from '@mediagate/shared/testing';
import express from 'express';
import pino from 'pino';
import { bindRequestLog, requestContext } from './request-context';

// The request's id, its end logged as pino-http logged it, and a logger made only when used.
interface Line {
  level: number;
  msg: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  accountId?: string;
  responseTime?: number;
  err?: { message: string };
  step?: string;
}

async function appLoggingTo(level: string) {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  const logger = pino({ level }, stream);
  const app = express();
  app.use(requestContext(logger));
  app.get('/ok', (req, res) => {
    bindRequestLog(req, { accountId: 'acct_1' });
    res.json({ ok: true });
  });
  app.get('/logs', (req, res) => {
    req.log.info({ step: 'inside' }, 'working');
    bindRequestLog(req, { accountId: 'acct_2' });
    res.json({ ok: true });
  });
  app.get('/fails', (_req, res) => {
    res.status(503).json({ ok: false });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const base = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { lines, logger, base, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const until = (cond: () => boolean) => waitFor(cond, { timeoutMs: 5_000, intervalMs: 5, what: 'a log line' });

/** Runs `test` against an app logging at `level`, closed afterwards. */
async function withApp(level: string, test: (t: Awaited<ReturnType<typeof appLoggingTo>>) => Promise<void>) {
  const t = await appLoggingTo(level);
  try {
    await test(t);
  } finally {
    await t.close();
  }
}

describe('requestContext', () => {
  it('logs the end of a request with its id, binding, status and time', () =>
    withApp('info', async (t) => {
      const res = await fetch(`${t.base()}/ok?x=1`, { headers: { 'x-request-id': 'abc-123' } });
      expect(res.headers.get('x-request-id')).toBe('abc-123');
      await until(() => t.lines.length > 0);
      expect(t.lines[0]).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { id: 'abc-123', method: 'GET', url: '/ok?x=1' },
        res: { statusCode: 200 },
        accountId: 'acct_1',
      });
      expect(typeof t.lines[0]!.responseTime).toBe('number');
    }));

  it("keeps bindings added after the request's logger was made", () =>
    withApp('info', async (t) => {
      await fetch(`${t.base()}/logs`);
      await until(() => t.lines.length > 1);
      expect(t.lines[0]).toMatchObject({ msg: 'working', step: 'inside', req: { url: '/logs' } });
      expect(t.lines[0]!.accountId).toBeUndefined();
      expect(t.lines[1]).toMatchObject({ msg: 'request completed', accountId: 'acct_2' });
    }));

  it('writes the end of a request that logged nothing else without a child logger, with the same fields', () =>
    withApp('info', async (t) => {
      const child = jest.spyOn(t.logger, 'child');
      await fetch(`${t.base()}/ok`, { headers: { 'x-request-id': 'plain-1' } });
      await until(() => t.lines.length > 0);
      expect(child).not.toHaveBeenCalled();
      await fetch(`${t.base()}/logs`, { headers: { 'x-request-id': 'logged-1' } });
      await until(() => t.lines.length > 2);
      expect(child).toHaveBeenCalledTimes(1);
      const [plain, , logged] = t.lines as [Line & Record<string, unknown>, Line, Line & Record<string, unknown>];
      expect(Object.keys(plain).sort()).toEqual(Object.keys(logged).sort());
      expect(plain).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { id: 'plain-1', method: 'GET', url: '/ok' },
        res: { statusCode: 200 },
        accountId: 'acct_1',
      });
    }));

  it('logs a 5xx as an error even when info is off, and nothing else', () =>
    withApp('warn', async (t) => {
      const ok = await fetch(`${t.base()}/ok`);
      expect(ok.headers.get('x-request-id')).toMatch(/^req_/);
      await fetch(`${t.base()}/fails`);
      await until(() => t.lines.length > 0);
      expect(t.lines).toHaveLength(1);
      expect(t.lines[0]).toMatchObject({
        level: 50,
        msg: 'request errored',
        res: { statusCode: 503 },
        err: { message: 'failed with status code 503' },
      });
    }));

  it('does not log health checks', () =>
    withApp('info', async (t) => {
      await fetch(`${t.base()}/healthz`);
      await fetch(`${t.base()}/ok`);
      await until(() => t.lines.length > 0);
      expect(t.lines.map((l) => l.req?.url)).toEqual(['/ok']);
    }));
});
