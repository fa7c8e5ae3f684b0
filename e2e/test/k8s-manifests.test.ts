import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * deploy/k8s renders with `kubectl kustomize` (base and every overlay) and every object validates
 * against its schema (Kubernetes OpenAPI and KEDA CRDs, offline), with the deployment rules the
 * gateway relies on: see e2e/scripts/validate-k8s.mjs.
 */
const ROOT = path.join(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'e2e', 'scripts', 'validate-k8s.mjs');
const hasKubectl = spawnSync('sh', ['-c', 'command -v kubectl'], { stdio: 'ignore' }).status === 0;
// CI installs kubectl (.ci/run); elsewhere the test says what is missing and is skipped
const maybe = hasKubectl || process.env.CI ? it : it.skip;
if (!hasKubectl)
  process.stderr.write('[k8s-manifests] kubectl is not installed: apt-get install -y kubectl\n');

function validate(...dirs: string[]): { status: number | null; report: any } {
  const r = spawnSync(process.execPath, [SCRIPT, ...dirs], { encoding: 'utf8' });
  return { status: r.status, report: r.stdout ? JSON.parse(r.stdout) : { stderr: r.stderr } };
}

maybe('the base and every overlay render and every object validates', () => {
  const { status, report } = validate();
  expect(report.problems).toEqual([]);
  expect(status).toBe(0);
  const base = report.rendered.find((r: any) => r.kustomization === 'deploy/k8s/base');
  expect(base.kinds).toMatchObject({
    Deployment: 4,
    PodDisruptionBudget: 4,
    ScaledObject: 3,
    Service: 1,
    ConfigMap: 1,
    ServiceAccount: 1,
    PodMonitor: 2,
    NetworkPolicy: 3,
  });
  expect(base.kinds.Job).toBeUndefined();
  expect(report.rendered.map((r: any) => r.kustomization)).toContain('deploy/k8s/overlays/example');
});

maybe('a wrong field type, a missing probe or a short termination period is reported', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mg-k8s-'));
  try {
    cpSync(path.join(ROOT, 'deploy', 'k8s', 'base'), dir, { recursive: true });
    const edit = (file: string, from: string | RegExp, to: string) => {
      const p = path.join(dir, file);
      const text = readFileSync(p, 'utf8');
      expect(text).toMatch(from);
      writeFileSync(p, text.replace(from, to));
    };
    edit('keda.yaml', 'minReplicaCount: 1', 'minReplicaCount: one');
    edit('worker-callbacks.yaml', /\n {10}livenessProbe:/, '\n          livenessProbeX:');
    edit('api.yaml', 'terminationGracePeriodSeconds: 40', 'terminationGracePeriodSeconds: 35');
    const { status, report } = validate(dir);
    expect(status).toBe(1);
    const problems = report.problems.join('\n');
    expect(problems).toMatch(/ScaledObject\/mediagate-worker-video: .*minReplicaCount must be integer/);
    expect(problems).toMatch(/Deployment\/mediagate-worker-callbacks: container worker has no livenessProbe/);
    expect(problems).toMatch(/Deployment\/mediagate-api: terminationGracePeriodSeconds 35 <= 35 s/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

maybe('kubectl renders offline', () => {
  expect(
    execFileSync('kubectl', ['kustomize', path.join(ROOT, 'deploy/k8s/base')], { encoding: 'utf8' }),
  ).toMatch(/kind: ScaledObject/);
});

/** A copy of deploy/k8s where `edits` are applied; validates its example overlay. */
function validateEdited(edits: Array<[file: string, from: string | RegExp, to: string]>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mg-k8s-'));
  try {
    cpSync(path.join(ROOT, 'deploy', 'k8s'), dir, { recursive: true });
    for (const [file, from, to] of edits) {
      const p = path.join(dir, file);
      const text = readFileSync(p, 'utf8');
      expect(text).toMatch(from);
      writeFileSync(p, text.replace(from, to));
    }
    const { status, report } = validate(path.join(dir, 'overlays', 'example'));
    return { status, problems: (report.problems as string[]).join('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const OVERLAY = 'overlays/example/kustomization.yaml';

maybe(
  'a container that would exit at start is reported, with every variable it lacks (the image sets NODE_ENV=production)',
  () => {
    const { status, problems } = validateEdited([
      [OVERLAY, /\n +- MEDIA_SIGNING_SECRET=.*/, ''],
      [OVERLAY, /\n +- PUBLIC_BASE_URL=.*/, ''],
    ]);
    expect(status).toBe(1);
    for (const role of ['mediagate-api', 'mediagate-worker-video', 'mediagate-reconciler']) {
      expect(problems).toMatch(
        new RegExp(`Deployment/${role}: \\w+ exits at start: MEDIA_SIGNING_SECRET: required`),
      );
      expect(problems).toMatch(
        new RegExp(`Deployment/${role}: \\w+ exits at start: PUBLIC_BASE_URL: required in production`),
      );
    }
    // the callbacks dispatcher signs no links: it needs neither
    expect(problems).not.toMatch(/mediagate-worker-callbacks: worker exits at start/);
  },
);

maybe('a worker listening on loopback while probed and scraped on the pod IP is reported', () => {
  const { problems } = validateEdited([['base/configmap.yaml', /\n {2}WORKER_HTTP_HOST: 0.0.0.0/, '']]);
  for (const role of ['mediagate-worker-video', 'mediagate-worker-callbacks', 'mediagate-reconciler']) {
    expect(problems).toMatch(
      new RegExp(
        `Deployment/${role}: the readinessProbe probes the pod IP, port 9100, but the process listens on 127.0.0.1`,
      ),
    );
    expect(problems).toMatch(
      new RegExp(
        `Deployment/${role}: PodMonitor/mediagate-workers scrapes the pod IP, but /metrics listens on 127.0.0.1`,
      ),
    );
  }
});

maybe('an API whose /metrics nobody scrapes, or scrapes without its token, is reported', () => {
  const { problems } = validateEdited([
    [
      'base/monitoring.yaml',
      /app.kubernetes.io\/name: mediagate-api\n {2}podMetricsEndpoints/,
      'app.kubernetes.io/name: mediagate-nothing\n  podMetricsEndpoints',
    ],
    // the workers' monitor sends another Secret's value
    [
      'base/monitoring.yaml',
      /name: mediagate-metrics\n( +)key: METRICS_TOKEN\n(?![\s\S]*METRICS_TOKEN)/,
      'name: mediagate-keda\n$1key: REDIS_PASSWORD\n',
    ],
  ]);
  expect(problems).toMatch(/Deployment\/mediagate-api: no PodMonitor scrapes it/);
  expect(problems).toMatch(
    /Deployment\/mediagate-worker-video: PodMonitor\/mediagate-workers does not send its METRICS_TOKEN/,
  );
});

maybe('media on a pod-local directory is reported: the local driver without a shared volume', () => {
  const { problems } = validateEdited([[OVERLAY, /\n +- MEDIA_DRIVER=s3/, '\n      - MEDIA_DIR=/media']]);
  for (const role of ['mediagate-api', 'mediagate-worker-video']) {
    expect(problems).toMatch(
      new RegExp(
        `Deployment/${role}: MEDIA_DRIVER=local stores media in /media, not on a ReadWriteMany volume`,
      ),
    );
  }
});

maybe('pools beyond PgBouncer or Postgres and replicas under KEDA are reported', () => {
  const { problems } = validateEdited([
    [
      'base/worker-video.yaml',
      /name: DATABASE_POOL_MAX\n +value: "20"/,
      'name: DATABASE_POOL_MAX\n              value: "60"',
    ],
    ['overlays/example/pgbouncer.yaml', 'postgres-max-connections: "100"', 'postgres-max-connections: "50"'],
    ['base/api.yaml', /\nspec:\n {2}revisionHistoryLimit/, '\nspec:\n  replicas: 2\n  revisionHistoryLimit'],
  ]);
  // 30 x 10 + 20 x 60 + 10 x 10 + 1 x 5 pooled, one migration connection for each of 61 pods
  expect(problems).toMatch(
    /PgBouncer: 1605 pooled \+ 61 migration client connections at the autoscalers' maxima exceed max_client_conn 1000/,
  );
  expect(problems).toMatch(
    /PgBouncer: 2 replicas x 24 server connections \+ 3 reserved exceed Postgres's max_connections 50/,
  );
  expect(problems).toMatch(/Deployment\/mediagate-api sets replicas, which KEDA owns/);
});

maybe('a direct connection to Postgres and a pod given secrets it does not use are reported', () => {
  const { problems } = validateEdited([
    [
      OVERLAY,
      '@mediagate-pgbouncer.mediagate.svc:5432/mediagate\n',
      '@postgres.mediagate.svc:5432/mediagate\n',
    ],
    [
      'base/worker-callbacks.yaml',
      /- secretRef:\n +name: mediagate-metrics/,
      '- secretRef:\n                name: mediagate-metrics\n            - secretRef:\n                name: mediagate-keda',
    ],
  ]);
  expect(problems).toMatch(
    /Deployment\/mediagate-api reaches Postgres directly \(postgres.mediagate.svc:5432\)/,
  );
  expect(problems).toMatch(
    /Deployment\/mediagate-worker-callbacks: worker is given REDIS_PASSWORD \(Secret\/mediagate-keda\)/,
  );
});
