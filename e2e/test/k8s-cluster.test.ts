import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {
  createCallbacksQueue,
  createMediaQueue,
  createRedis,
  createVideoQueue,
} from '@mediagate/shared/queue';
import { Pool } from 'pg';
import * as k8s from '../scripts/k8s-objects.cjs';
import { Cluster, type Pod, sh, sleep } from './k8s/cluster';
import { VIDEO_REQUEST } from './stack';

/**
 * The example overlay run as a cluster would run it, on this machine, as processes (see
 * k8s/cluster.ts): rendered with kustomize; Postgres, Redis and Prometheus where the overlay
 * expects them (own instances of this test); one pod per Deployment in its own network namespace,
 * read-only root, its volumes, its user, exactly its environment; migrations first (each pod's init
 * containers); probes against the pod IP; Services to ready pods; a real Prometheus scraping per
 * the PodMonitors, read by the ScaledObjects' queries; a video task through the Service into S3 and
 * back from PUBLIC_BASE_URL; a rollout to a new image tag under traffic without a failed request.
 * K8S_OVERLAY=<dir> runs another overlay (an older one, to see it fail).
 */
// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects as parsed YAML
type Obj = any;

const ROOT = k8s.ROOT;
const OVERLAY = process.env.K8S_OVERLAY ?? path.join(ROOT, 'deploy', 'k8s', 'overlays', 'example');
const PG_BIN = existsSync('/usr/lib/postgresql')
  ? path.join('/usr/lib/postgresql', readdirSync('/usr/lib/postgresql').sort().at(-1)!, 'bin')
  : '';
const TOOLS = [
  'ip',
  'unshare',
  'setpriv',
  'mount',
  'kubectl',
  'prometheus',
  'pgbouncer',
  'redis-server',
  'runuser',
];
const missing = [
  ...TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0),
  ...(existsSync(path.join(PG_BIN, 'initdb')) ? [] : ['postgresql (initdb)']),
  ...(process.getuid?.() === 0 ? [] : ['root']),
];
// CI runs as root with the tools installed (.ci/run); elsewhere the test says what is missing
const maybe = missing.length === 0 || process.env.CI ? describe : describe.skip;
if (missing.length) process.stderr.write(`[k8s-cluster] skipped, missing: ${missing.join(', ')}\n`);

const figures: Record<string, unknown> = {};
const procs: ChildProcess[] = [];
let objects: Obj[];
let cluster: Cluster;
let namespace: string;
let pgUrl: string;
let redisUrl: string;
let promIp: string;
let key: string;
let taskId: string;
const podOf = (deployment: string) =>
  cluster.pods.find((p) => p.deployment === deployment && !p.terminating)!;
const deployments = () => objects.filter((o) => o.kind === 'Deployment');
const config = () => k8s.dataOf(k8s.find(objects, 'ConfigMap', 'mediagate-config')) ?? {};

/** Each container of the overlay as it runs here: the gateway image's entries as they are, stand-ins for others' images. */
function standIn(pod: Pod, c: Obj): { command: string[] } | undefined {
  if (/minio/.test(c.image)) {
    const port = String(c.ports[0].containerPort);
    const data = (c.volumeMounts ?? []).find((m: Obj) => m.mountPath === '/data');
    return { command: ['node', 'e2e/test/k8s/s3-standin.cjs', port, pod.volumes[data?.name] ?? '/tmp'] };
  }
  return undefined;
}

/** An HTTP request as a client in the cluster makes it: names resolve to the Services' IPs. */
function request(
  method: string,
  url: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(url);
  const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: cluster.resolve(u.hostname) ?? u.hostname,
        port: u.port || 80,
        path: u.pathname + u.search,
        method,
        headers: {
          host: u.host,
          ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          ...opts.headers,
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const apiBase = () => `http://mediagate-api.${namespace}.svc`;
const api = async (method: string, p: string, body?: unknown) => {
  const r = await request(method, apiBase() + p, { headers: { authorization: `Bearer ${key}` }, body });
  return { status: r.status, json: r.body.length ? JSON.parse(r.body.toString()) : undefined };
};

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  fn: () => Promise<T | undefined | false>,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
}

function selectsPod(selector: Obj, labels: Record<string, string>): boolean {
  const ok = Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    ok &&
    (selector?.matchExpressions ?? []).every((e: Obj) =>
      e.operator === 'In'
        ? e.values.includes(labels[e.key])
        : e.operator === 'Exists'
          ? e.key in labels
          : true,
    )
  );
}

/** Postgres where the overlay expects it, with the roles and databases its URLs and PgBouncer name. */
async function startPostgres(): Promise<void> {
  const ip = cluster.addServiceIp('postgres');
  const bouncer = deployments().find((d) => /pgbouncer/.test(d.spec.template.spec.containers[0].image));
  const maxConnections = bouncer?.metadata.annotations?.['mediagate/postgres-max-connections'] ?? '100';
  const dir = path.join(cluster.dir, 'postgres');
  mkdirSync(dir);
  chownSync(dir, Number(sh('id', ['-u', 'postgres']).trim()), Number(sh('id', ['-g', 'postgres']).trim()));
  sh('runuser', [
    '-u',
    'postgres',
    '--',
    path.join(PG_BIN, 'initdb'),
    '-D',
    path.join(dir, 'data'),
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--no-sync',
  ]);
  writeFileSync(
    path.join(dir, 'data', 'pg_hba.conf'),
    'local all all trust\nhost all all 0.0.0.0/0 scram-sha-256\n',
  );
  const pg = spawn(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      path.join(PG_BIN, 'postgres'),
      '-D',
      path.join(dir, 'data'),
      '-k',
      dir,
      '-h',
      ip,
      '-p',
      '5432',
      '-c',
      `max_connections=${maxConnections}`,
      '-c',
      'shared_buffers=16MB',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    { stdio: 'ignore' },
  );
  procs.push(pg);
  await waitFor(
    'Postgres',
    60_000,
    async () => spawnSync(path.join(PG_BIN, 'pg_isready'), ['-q', '-h', dir]).status === 0,
  );
  figures.postgresMaxConnections = Number(maxConnections);
  // who connects: the URLs of the Secrets, PgBouncer's databases and its user list
  const logins = new Map<string, string>();
  const databases = new Set<string>();
  for (const s of objects.filter((o) => o.kind === 'Secret')) {
    for (const v of Object.values(k8s.dataOf(s) ?? {})) {
      for (const m of v.matchAll(/postgres(?:ql)?:\/\/([^:@/]+):([^@/]+)@postgres\.[^/]+\/(\w+)/g)) {
        logins.set(m[1]!, m[2]!);
        databases.add(m[3]!);
      }
      for (const m of v.matchAll(/^"([^"]+)" "([^"]+)"$/gm)) logins.set(m[1]!, m[2]!);
    }
  }
  for (const c of objects.filter((o) => o.kind === 'ConfigMap')) {
    for (const v of Object.values(k8s.dataOf(c) ?? {})) {
      for (const m of v.matchAll(/host=postgres\.\S+ .*?dbname=(\w+)/g)) databases.add(m[1]!);
    }
  }
  const [owner] = [...logins.keys()];
  const sql = [
    ...[...logins].map(([u, p]) => `create role "${u}" login password '${p.replace(/'/g, "''")}';`),
    ...[...databases].map((d) => `create database "${d}" owner "${owner}";`),
  ];
  for (const statement of sql)
    sh('psql', ['-q', '-h', dir, '-U', 'postgres', '-d', 'postgres', '-c', statement]);
  pgUrl = `postgres://${owner}:${encodeURIComponent(logins.get(owner!)!)}@${ip}:5432/${[...databases][0]}`;
}

/** Redis where the overlay expects it, with the password its URLs carry. */
async function startRedis(): Promise<void> {
  const ip = cluster.addServiceIp('redis');
  let password = '';
  for (const s of objects.filter((o) => o.kind === 'Secret')) {
    for (const v of Object.values(k8s.dataOf(s) ?? {})) {
      const m = /rediss?:\/\/[^:]*:([^@]+)@redis\./.exec(v);
      if (m) password = decodeURIComponent(m[1]!);
    }
  }
  const args = ['--bind', ip, '--port', '6379', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];
  if (password) args.push('--requirepass', password);
  procs.push(spawn('redis-server', args, { stdio: 'ignore' }));
  redisUrl = `redis://:${encodeURIComponent(password)}@${ip}:6379`;
  await waitFor('Redis', 30_000, async () =>
    spawnSync('redis-cli', ['-h', ip, '-a', password, '--no-auth-warning', 'ping'])
      .stdout?.toString()
      .includes('PONG'),
  );
}

/**
 * Prometheus as Prometheus Operator configures it from the PodMonitors: one job per endpoint
 * (interval, timeout, path, bearer token from its Secret), the pods they select as targets with the
 * operator's labels (namespace, pod, container, endpoint; job <namespace>/<monitor>).
 */
function startPrometheus(): () => void {
  promIp = cluster.addServiceIp('prometheus-operated', 'monitoring');
  const dir = path.join(cluster.dir, 'prometheus');
  mkdirSync(path.join(dir, 'sd'), { recursive: true });
  const jobs: Array<{ monitor: Obj; ep: Obj; sd: string }> = [];
  const scrape: string[] = [];
  for (const monitor of objects.filter((o) => o.kind === 'PodMonitor')) {
    monitor.spec.podMetricsEndpoints.forEach((ep: Obj, i: number) => {
      const name = `podMonitor/${namespace}/${monitor.metadata.name}/${i}`;
      const sd = path.join(dir, 'sd', `${monitor.metadata.name}-${i}.json`);
      writeFileSync(sd, '[]');
      const cred = ep.authorization?.credentials ?? ep.bearerTokenSecret;
      const tokenFile = path.join(dir, `${monitor.metadata.name}-${i}.token`);
      if (cred)
        writeFileSync(tokenFile, k8s.dataOf(k8s.find(objects, 'Secret', cred.name))?.[cred.key] ?? '');
      scrape.push(
        [
          `  - job_name: ${JSON.stringify(name)}`,
          `    scrape_interval: ${ep.interval ?? '30s'}`,
          `    scrape_timeout: ${ep.scrapeTimeout ?? '10s'}`,
          `    metrics_path: ${ep.path ?? '/metrics'}`,
          ...(cred
            ? ['    authorization:', '      type: Bearer', `      credentials_file: ${tokenFile}`]
            : []),
          '    file_sd_configs:',
          `      - files: [${JSON.stringify(sd)}]`,
        ].join('\n'),
      );
      jobs.push({ monitor, ep, sd });
    });
  }
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 30s\nscrape_configs:\n${scrape.join('\n')}\n`,
  );
  procs.push(
    spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=${promIp}:9090`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    ),
  );
  let last = '';
  const sync = () => {
    for (const { monitor, ep, sd } of jobs) {
      const targets = cluster.pods
        .filter((p) => !p.terminating && p.initDone && selectsPod(monitor.spec.selector, p.labels))
        .flatMap((p) =>
          p.spec.containers
            .filter(
              (c: Obj) =>
                k8s.portNumber(c, ep.port) !== undefined &&
                (c.ports ?? []).some((x: Obj) => x.name === ep.port),
            )
            .map((c: Obj) => ({
              targets: [`${p.ip}:${k8s.portNumber(c, ep.port)}`],
              labels: {
                namespace,
                pod: p.name,
                container: c.name,
                endpoint: ep.port,
                job: `${namespace}/${monitor.metadata.name}`,
              },
            })),
        );
      const text = JSON.stringify(targets);
      if (text !== last) writeFileSync(sd, text);
      last = text;
    }
  };
  const timer = setInterval(sync, 1000);
  return () => clearInterval(timer);
}

async function promQuery(serverAddress: string, query: string): Promise<number | undefined> {
  const u = new URL(serverAddress);
  const r = await request('GET', `${u.origin}/api/v1/query?query=${encodeURIComponent(query)}`);
  const result = JSON.parse(r.body.toString()).data?.result ?? [];
  return result.length ? Number(result[0].value[1]) : undefined;
}

let stopSync = () => {};
maybe('the example overlay, run as a cluster would run it', () => {
  beforeAll(async () => {
    objects = k8s.render(OVERLAY);
    namespace = objects.find((o) => o.kind === 'Namespace')?.metadata.name ?? 'default';
    cluster = new Cluster(objects, namespace, standIn);
    await startPostgres();
    await startRedis();
    cluster.startServices();
    stopSync = startPrometheus();
    // kubectl apply: every Deployment gets one pod
    for (const d of deployments()) cluster.createPod(d);
  }, 120_000);

  afterAll(async () => {
    stopSync();
    await cluster?.close();
    for (const p of procs) p.kill('SIGKILL');
    process.stderr.write(`[k8s-cluster] figures ${JSON.stringify(figures, null, 1)}\n`);
  }, 60_000);

  it('every pod runs its migrations first, starts and becomes ready on its probes, without a restart', async () => {
    const ready = await Promise.allSettled(cluster.pods.map((p) => cluster.waitReady(p, 150_000)));
    const failed = ready.flatMap((r) => (r.status === 'rejected' ? [String(r.reason.message)] : []));
    expect(failed).toEqual([]);
    const inits = (p: Pod) => new Set((p.spec.initContainers ?? []).map((c: Obj) => c.name));
    for (const p of cluster.pods) {
      // an init container may run again while PgBouncer starts beside it, as in a cluster; the
      // processes themselves never restart
      for (const c of p.containers.filter((x) => !inits(p).has(x.name))) {
        expect(`${p.name}/${c.name} restarts ${c.restarts}`).toBe(`${p.name}/${c.name} restarts 0`);
      }
      // init containers (the migrations) ran to completion before the process started
      for (const init of p.spec.initContainers ?? []) {
        expect(p.containers.find((c) => c.name === init.name)?.exits.at(-1)?.code).toBe(0);
      }
    }
    figures.readyAfterMs = Object.fromEntries(cluster.pods.map((p) => [p.deployment, p.readyAfterMs]));
    figures.initRestarts = Object.fromEntries(
      cluster.pods.map((p) => [
        p.deployment,
        p.containers.filter((c) => inits(p).has(c.name)).map((c) => c.restarts),
      ]),
    );
    const pool = new Pool({ connectionString: pgUrl, max: 1 });
    const { rows } = await pool.query(
      `select count(*)::int as n from information_schema.tables where table_schema = 'public'`,
    );
    await pool.end();
    expect(rows[0].n).toBeGreaterThan(5);
  }, 180_000);

  it('Prometheus scrapes every role on its pod IP with its token, and the ScaledObjects read what they scale on', async () => {
    // every pod a PodMonitor selects is a healthy target
    const monitored = cluster.pods.filter((p) =>
      objects.some((o) => o.kind === 'PodMonitor' && selectsPod(o.spec.selector, p.labels)),
    );
    for (const role of [
      'mediagate-api',
      'mediagate-worker-video',
      'mediagate-worker-callbacks',
      'mediagate-reconciler',
    ]) {
      expect(monitored.map((p) => p.deployment)).toContain(role);
    }
    const targets = await waitFor('every target up', 90_000, async () => {
      const r = await request('GET', `http://${promIp}:9090/api/v1/targets`);
      const active = JSON.parse(r.body.toString()).data.activeTargets as Obj[];
      return active.length >= monitored.length && active.every((t) => t.health === 'up') ? active : undefined;
    });
    figures.scrapeTargets = targets.map((t: Obj) => `${t.labels.job} ${t.labels.pod} ${t.health}`);
    // the API's ScaledObject: its query, at its server, reads the request rate
    const so = objects.find(
      (o) => o.kind === 'ScaledObject' && o.spec.scaleTargetRef.name === 'mediagate-api',
    );
    const trigger = so.spec.triggers.find((t: Obj) => t.type === 'prometheus');
    const load = setInterval(() => void request('GET', `${apiBase()}/healthz`).catch(() => {}), 100);
    try {
      const rate = await waitFor('the request rate in Prometheus', 120_000, async () => {
        const v = await promQuery(trigger.metadata.serverAddress, trigger.metadata.query);
        return v !== undefined && v > 0 ? v : undefined;
      });
      figures.apiRequestRate = rate;
    } finally {
      clearInterval(load);
    }
    // the Redis triggers: each list is a queue's wait list, read with KEDA's own password
    const auth = objects.find((o) => o.kind === 'TriggerAuthentication');
    const ref = auth.spec.secretTargetRef.find((r: Obj) => r.parameter === 'password');
    const password = k8s.dataOf(k8s.find(objects, 'Secret', ref.name))![ref.key];
    const redis = createRedis(redisUrl, 'producer');
    try {
      const prefix = config().QUEUE_PREFIX ?? 'mediagate';
      const queues = {
        video: createVideoQueue(redis, prefix),
        media: createMediaQueue(redis, prefix),
        callbacks: createCallbacksQueue(redis, prefix),
      };
      const lists = objects
        .filter((o) => o.kind === 'ScaledObject')
        .flatMap((o) =>
          o.spec.triggers
            .filter((t: Obj) => t.type === 'redis')
            .map((t: Obj) => [o.spec.scaleTargetRef.name, t.metadata.listName]),
        );
      expect(lists).toEqual(
        expect.arrayContaining([
          ['mediagate-worker-video', queues.video.keys.wait],
          ['mediagate-worker-video', queues.media.keys.wait],
          ['mediagate-worker-callbacks', queues.callbacks.keys.wait],
        ]),
      );
      const keda = createRedis(
        redisUrl.replace(/:\/\/:[^@]*@/, `://:${encodeURIComponent(password!)}@`),
        'producer',
      );
      for (const [, list] of lists) expect(typeof (await keda.llen(list))).toBe('number');
      keda.disconnect();
      for (const q of Object.values(queues)) await q.close();
    } finally {
      redis.disconnect();
    }
  }, 240_000);

  it('a video task through the Service is stored in S3 and served from PUBLIC_BASE_URL', async () => {
    const cli = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'packages/shared/dist/cli/main.js'),
        'account:create',
        '--email',
        `k8s-${cluster.id}@example.test`,
        '--balance-usd',
        '20',
      ],
      {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: pgUrl,
          REDIS_URL: redisUrl,
          QUEUE_PREFIX: config().QUEUE_PREFIX ?? 'mediagate',
          NODE_ENV: 'test',
        },
        encoding: 'utf8',
      },
    );
    expect(cli.status).toBe(0);
    key = cli.stdout.trim();
    const created = await api('POST', '/v1/videos', VIDEO_REQUEST);
    expect(created.status).toBe(200);
    taskId = created.json.id;
    const started = Date.now();
    let seen = '';
    const task = await waitFor('the task to finish with its video stored', 180_000, async () => {
      const t = (await api('GET', `/v1/videos/${taskId}`)).json;
      const pool = new Pool({ connectionString: pgUrl, max: 1 });
      const { rows } = await pool
        .query('select * from task_media where task_id = $1', [taskId])
        .finally(() => pool.end());
      seen = JSON.stringify({ task: t, media: rows[0] });
      if (t.status === 'failed') throw new Error(seen);
      return t.status === 'succeeded' && rows[0]?.status === 'stored' ? t : undefined;
    }).catch((err) => {
      const pods = ['mediagate-worker-video', 'mediagate-s3', 'mediagate-upstream-sim'].map((d) =>
        cluster.describe(podOf(d)),
      );
      throw new Error(`${err.message}\nlast seen: ${seen}\n${pods.join('\n')}`);
    });
    figures.videoStoredAfterMs = Date.now() - started;
    const publicBase = config().PUBLIC_BASE_URL!;
    expect(task.video_url.startsWith(`${publicBase}/`)).toBe(true);
    // the link answers with a presigned URL of the bucket, which serves the bytes
    const link = await request('GET', task.video_url);
    expect(link.status).toBe(302);
    const location = String(link.headers.location);
    expect(location.startsWith(config().MEDIA_S3_ENDPOINT!)).toBe(true);
    const video = await request('GET', location);
    expect(video.status).toBe(200);
    expect(video.body.toString('latin1', 4, 8)).toBe('ftyp');
  }, 240_000);

  it('a rollout to a new image tag migrates first and drops no request while pods are replaced', async () => {
    // the next `kubectl apply` with another tag: a Job's template is immutable, Deployments roll
    const image = deployments()[0].spec.template.spec.containers[0].image as string;
    const next = objects.map((o) =>
      JSON.parse(
        JSON.stringify(o)
          .split(`"${image}"`)
          .join(`"${image.replace(/:[^:/]+$/, '')}:rollout"`),
      ),
    );
    for (const job of next.filter((o) => o.kind === 'Job')) {
      const before = objects.find((o) => o.kind === 'Job' && o.metadata.name === job.metadata.name);
      if (before && JSON.stringify(before.spec.template) !== JSON.stringify(job.spec.template))
        throw new Error(
          `kubectl apply: Job.batch "${job.metadata.name}" is invalid: spec.template: field is immutable`,
        );
    }
    objects.splice(0, objects.length, ...next);
    cluster.objects = objects;
    let ok = 0;
    const failures: string[] = [];
    let flowing = true;
    const client = async () => {
      while (flowing) {
        try {
          const r = await api('GET', `/v1/videos/${taskId}`);
          if (r.status === 200) ok += 1;
          else failures.push(`${new Date().toISOString()} ${r.status} ${JSON.stringify(r.json)}`);
        } catch (err) {
          failures.push(`${new Date().toISOString()} ${err}`);
        }
        // about 2 requests a second per client: within the key's rate limit (RATE_LIMIT_RPM)
        await sleep(500);
      }
    };
    const clients = [client(), client(), client()];
    const rolled: Record<string, unknown> = {};
    try {
      await Promise.all(
        next
          .filter((o) => o.kind === 'Deployment' && JSON.stringify(o).includes(':rollout"'))
          .map(async (d) => {
            const old = podOf(d.metadata.name);
            const started = Date.now();
            const pod = cluster.createPod(d);
            await cluster.waitReady(pod, 150_000);
            const readyMs = Date.now() - started;
            const gone = await cluster.deletePod(old);
            rolled[d.metadata.name] = {
              newReadyMs: readyMs,
              oldExitedMs: gone.exitedAfterMs,
              killed: gone.killed,
            };
            expect(`${d.metadata.name} killed after the grace period: ${gone.killed}`).toBe(
              `${d.metadata.name} killed after the grace period: false`,
            );
          }),
      );
    } finally {
      flowing = false;
      await Promise.all(clients);
    }
    figures.rollout = { ...rolled, requestsServed: ok, failed: failures.length };
    if (failures.length) {
      figures.rolloutEvents = [...cluster.log, ...failures].sort();
      figures.rolloutApiPods = cluster.pods
        .filter((p) => p.deployment === 'mediagate-api')
        .map((p) =>
          p.containers
            .flatMap((c) => c.output.split('\n').filter((l) => !l.includes('"level":30')))
            .join('\n')
            .slice(-8000),
        );
    }
    expect(failures).toEqual([]);
    expect(ok).toBeGreaterThan(10);
  }, 300_000);
});
