import path from 'node:path';
import { freePort, startProcess } from '@mediagate/shared/testing';
import { benchEnv, VIDEO_BODY } from '../env';
import { httpLoad } from '../load';
import { type Row, ratioRow } from '../report';

/** GET /v1/videos/{id} at 50 connections, against a bare Express + pg handler reading the same row. */
export async function pollScenario(opts: { quick: boolean }): Promise<Row[]> {
  const e = await benchEnv();
  try {
    const api = await e.group.start('api', 'api');
    const base = `http://127.0.0.1:${api.port}`;
    const headers = { authorization: `Bearer ${e.key}` };
    const create = () =>
      fetch(`${base}/v1/videos`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: VIDEO_BODY,
      })
        .then((r) => r.json() as Promise<{ id: string }>)
        .then((t) => t.id);
    const terminalId = await create();
    const pendingId = await create();
    const runningId = await create();
    await e.database.pool.query(
      `update tasks set status = 'processing', progress = 50, started_at = now() where id = $1`,
      [runningId],
    );
    await e.database.pool.query(
      `update tasks set status = 'succeeded', progress = 100, video_url = 'https://cdn.example.com/v.mp4', completed_at = now() where id = $1`,
      [terminalId],
    );
    const barePort = await freePort();
    const bare = await startProcess({
      name: 'bare-poll',
      entry: path.join(__dirname, '..', 'bare-poll-server.js'),
      env: { DATABASE_URL: e.databaseUrl, PORT: String(barePort) },
      readyUrl: `http://127.0.0.1:${barePort}/healthz`,
    });
    const seconds = opts.quick ? 5 : 15;
    const load = (url: string, h: Record<string, string> = {}) =>
      httpLoad({ url, headers: h, connections: 50, durationSec: seconds });
    try {
      await load(`${base}/v1/videos/${terminalId}`, headers); // warm-up (and cache fill)
      const terminal = await load(`${base}/v1/videos/${terminalId}`, headers);
      const pending = await load(`${base}/v1/videos/${pendingId}`, headers);
      const running = await load(`${base}/v1/videos/${runningId}`, headers);
      const baseline = await load(`http://127.0.0.1:${barePort}/task/${terminalId}`);
      return [
        ratioRow({
          scenario: 'poll',
          metric: 'GET terminal task per second',
          value: Math.round(terminal.rps),
          unit: 'req/s',
          baseline: Math.round(baseline.rps),
          baselineLabel: 'bare express+pg',
          target: '>= 1.00',
          higherIsBetter: true,
          minRatio: 1,
        }),
        {
          scenario: 'poll',
          metric: 'terminal p50 / p99',
          value: terminal.p50ms,
          unit: 'ms',
          baseline: baseline.p50ms,
          baselineLabel: 'bare p50',
          note: `p99 ${terminal.p99ms} ms vs bare ${baseline.p99ms} ms`,
        },
        ratioRow({
          scenario: 'poll',
          metric: 'GET pending task per second',
          value: Math.round(pending.rps),
          unit: 'req/s',
          baseline: Math.round(baseline.rps),
          baselineLabel: 'bare express+pg',
          higherIsBetter: true,
          note: `p50 ${pending.p50ms} ms, p99 ${pending.p99ms} ms`,
        }),
        ratioRow({
          scenario: 'poll',
          metric: 'GET running task per second',
          value: Math.round(running.rps),
          unit: 'req/s',
          baseline: Math.round(baseline.rps),
          baselineLabel: 'bare express+pg',
          target: '>= 1.00',
          higherIsBetter: true,
          minRatio: 1,
          note: `p50 ${running.p50ms} ms, p99 ${running.p99ms} ms`,
        }),
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    await e.close();
  }
}
