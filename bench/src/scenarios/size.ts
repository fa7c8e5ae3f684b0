import { benchEnv } from '../env';
import { httpLoad } from '../load';
import { type Row, ratioRow } from '../report';

/** Fills the tasks table with `n` rows of one account (plus a long tail of other accounts). */
async function fill(pool: import('pg').Pool, accountId: string, keyId: string, n: number): Promise<string[]> {
  // ULID-shaped ids (time-ordered hex is valid Crockford base32) so keyset paging behaves as in production.
  await pool.query(
    `insert into tasks (id, account_id, api_key_id, model, status, prompt, metadata, price_micro_usd, deadline_at, created_at, updated_at)
     select 'task_' || upper(lpad(to_hex(1700000000000 + i), 12, '0')) || upper(lpad(to_hex(i), 14, '0')),
            $1, $2, 'wan2.6-i2v-flash-5s-720p',
            (array['pending','processing','succeeded','failed'])[1 + i % 4], 'a boat',
            '{"input":{"img_url":"https://example.com/a.png"},"parameters":{"duration":5}}'::jsonb, 250000,
            now() + interval '1 hour', now(), now()
     from generate_series(1, $3::int) as i`,
    [accountId, keyId, n],
  );
  await pool.query('analyze tasks');
  const { rows } = await pool.query(
    `select id from tasks where account_id = $1 and status = 'pending' order by random() limit 200`,
    [accountId],
  );
  return rows.map((r) => r.id as string);
}

async function measure(rowsInTable: number, quick: boolean) {
  const e = await benchEnv();
  try {
    const sample = await fill(e.database.pool, e.accountId, e.keyId, rowsInTable);
    const api = await e.group.start('api', 'api');
    const base = `http://127.0.0.1:${api.port}`;
    const headers = { authorization: `Bearer ${e.key}` };
    const seconds = quick ? 4 : 10;
    let i = 0;
    const next = () => sample[i++ % sample.length]!;
    const load = (pathFor: () => string) =>
      httpLoad({ url: base, headers, connections: 10, durationSec: seconds, pathFor });
    await load(() => `/v1/videos/${next()}`); // warm-up
    const poll = await load(() => `/v1/videos/${next()}`);
    const list = await load(() => `/v1/videos?limit=20&after=${next()}`);
    const listStatus = await load(() => `/v1/videos?limit=20&status=failed&after=${next()}`);
    return { poll, list, listStatus };
  } finally {
    await e.close();
  }
}

/** Poll and list latency with 1,000,000 tasks in the table, against 10,000. */
export async function sizeScenario(opts: { quick: boolean }): Promise<Row[]> {
  const small = await measure(10_000, opts.quick);
  const big = await measure(1_000_000, opts.quick);
  const row = (metric: string, b: { p50ms: number; p99ms: number }, s: { p50ms: number; p99ms: number }) =>
    ratioRow({
      scenario: 'size',
      metric: `${metric} p50 at 1M rows`,
      value: b.p50ms,
      unit: 'ms',
      baseline: s.p50ms,
      baselineLabel: '10k rows',
      target: '<= 1.20',
      higherIsBetter: false,
      maxRatio: 1.2,
      note: `p99 ${b.p99ms} ms vs ${s.p99ms} ms`,
    });
  return [
    row('GET /v1/videos/{id}', big.poll, small.poll),
    row('GET /v1/videos?after=', big.list, small.list),
    row('GET /v1/videos?status=&after=', big.listStatus, small.listStatus),
  ];
}
