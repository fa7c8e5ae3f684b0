import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, type RunningProcess, startReceiver, waitFor } from '@mediagate/shared/testing';
import YAML from 'yaml';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

/**
 * Debian's Prometheus scrapes a running stack (API, video worker, callbacks dispatcher,
 * reconciler) with the rules of deploy/observability loaded, under a short load: every panel of
 * the Grafana dashboard must answer at least one series, and every recording and alerting rule
 * must load, evaluate, and read only metrics the stack exports.
 */
const ROOT = path.join(__dirname, '..', '..');
const OBS = path.join(ROOT, 'deploy', 'observability');
const hasPrometheus = spawnSync('sh', ['-c', 'command -v prometheus'], { stdio: 'ignore' }).status === 0;

const TOKEN = randomBytes(18).toString('base64url');
let stack: Stack;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let prometheus: ChildProcess | undefined;
let promUrl: string;
let dir: string;
let scrapeTargets: string[];

/** The health-server port a worker logged at start. */
const portOf = (p: RunningProcess) => {
  const line = p
    .output()
    .split('\n')
    .find((l) => l.includes('health server listening'));
  const port = line && JSON.parse(line).port;
  if (!port) throw new Error(`${p.name}: no health server port in its log`);
  return port as number;
};
const query = async (expr: string): Promise<unknown[]> => {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
  return body.data!.result;
};

beforeAll(async () => {
  if (!hasPrometheus) return;
  stack = await startStack({
    callbackWorkers: 1,
    env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', METRICS_TOKEN: TOKEN, CALLBACK_TIMEOUT_MS: '3000' },
  });
  rx = await startReceiver(() => ({ status: 200 }));
  dir = await mkdtemp(path.join(os.tmpdir(), 'e2e-prometheus-'));
  scrapeTargets = [
    new URL(stack.apiUrl).host,
    ...[...stack.workers, ...stack.callbackWorkers, stack.reconcilerProcess!].map(
      (p) => `127.0.0.1:${portOf(p)}`,
    ),
  ];
  const targets = scrapeTargets;
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  await writeFile(
    path.join(dir, 'prometheus.yml'),
    YAML.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [path.join(OBS, 'rules.yml')],
      scrape_configs: [
        {
          job_name: 'mediagate',
          honor_labels: true,
          authorization: { type: 'Bearer', credentials: TOKEN },
          static_configs: [{ targets }],
        },
      ],
    }),
  );
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: 'ignore' },
  );
  await waitFor(async () => (await fetch(`${promUrl}/-/ready`).catch(() => null))?.ok === true, {
    timeoutMs: 60_000,
    what: 'Prometheus to be ready',
  });
}, 180_000);

afterAll(async () => {
  prometheus?.kill('SIGTERM');
  await rx?.close();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const maybe = hasPrometheus ? describe : describe.skip;

maybe('a real Prometheus scraping the stack', () => {
  it('scrapes every process, answers every dashboard panel and loads every rule on what the stack exports', async () => {
    // a short load: video tasks with callbacks, a refused request, reads
    const key = stack.newKey(50);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await stack.api('POST', '/v1/videos', key, {
        ...VIDEO_REQUEST,
        metadata: { ...VIDEO_REQUEST.metadata, callback_url: `${rx.url}/hook-${i}` },
      });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    expect((await stack.api('POST', '/v1/videos', key, { model: 'no-such-model' })).status).toBe(404);
    await waitFor(
      async () => {
        const states = await Promise.all(
          ids.map(async (id) => (await stack.api('GET', `/v1/videos/${id}`, key)).body.status),
        );
        return states.every((s) => s === 'succeeded') && rx.received.length >= ids.length;
      },
      { timeoutMs: 90_000 },
    );

    // every process is scraped, with the token
    await waitFor(async () => (await query('up == 1')).length === 4, {
      timeoutMs: 30_000,
      what: 'four targets up',
    });

    // every panel of the dashboard answers a series (its rate window made to fit a 1 s scrape)
    const dashboard = JSON.parse(await readFile(path.join(OBS, 'grafana', 'mediagate.json'), 'utf8'));
    const panels: Array<{ title: string; expr: string }> = dashboard.panels.flatMap(
      (p: { title: string; targets?: Array<{ expr: string }> }) =>
        (p.targets ?? []).map((t) => ({
          title: p.title,
          expr: t.expr.replaceAll('$__rate_interval', '1m'),
        })),
    );
    expect(panels.length).toBeGreaterThan(30);
    let empty: string[] = [];
    await waitFor(
      async () => {
        empty = [];
        for (const p of panels) {
          if ((await query(p.expr)).length === 0) empty.push(`${p.title}: ${p.expr}`);
        }
        return empty.length === 0;
      },
      { timeoutMs: 90_000 },
    ).catch(() => undefined);
    expect(empty).toEqual([]);

    // every rule loaded and evaluated without error
    const rulesYml = YAML.parse(await readFile(path.join(OBS, 'rules.yml'), 'utf8'));
    const expected: Array<{ name: string; expr: string }> = rulesYml.groups.flatMap(
      (g: { rules: Array<{ alert?: string; record?: string; expr: string }> }) =>
        g.rules.map((r) => ({ name: (r.alert ?? r.record)!, expr: r.expr })),
    );
    let loaded: Array<{ name: string; health: string; lastError?: string }> = [];
    await waitFor(
      async () => {
        const res = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as {
          data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
        };
        loaded = res.data.groups.flatMap((g) => g.rules);
        return loaded.length === expected.length && loaded.every((r) => r.health !== 'unknown');
      },
      { timeoutMs: 30_000 },
    );
    expect(loaded.filter((r) => r.health !== 'ok')).toEqual([]);
    expect(loaded.map((r) => r.name).sort()).toEqual(expected.map((r) => r.name).sort());

    // and they read only metrics the stack exports
    const names = (
      (await (await fetch(`${promUrl}/api/v1/label/__name__/values`)).json()) as { data: string[] }
    ).data;
    // what Prometheus holds samples of, and what the processes declare (a labelled counter has no
    // sample before its first event, e.g. refused payment notifications)
    const declared = await Promise.all(
      scrapeTargets.map(async (t) => {
        const text = await (
          await fetch(`http://${t}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
        ).text();
        return [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
      }),
    );
    const exported = new Set(
      [...names, ...declared.flat()].map((n) => n.replace(/_(bucket|count|sum)$/, '')),
    );
    const read = new Set(
      [...expected.map((r) => r.expr), ...panels.map((p) => p.expr)].flatMap((e) =>
        (e.match(/\bmediagate_[a-z0-9_]+/g) ?? []).map((n) => n.replace(/_(bucket|count|sum)$/, '')),
      ),
    );
    expect([...read].filter((m) => !exported.has(m)).sort()).toEqual([]);
  }, 300_000);
});
