#!/usr/bin/env node
// Renders deploy/k8s (the base and every overlay) with `kubectl kustomize`, offline, and validates
// every object against its schema: the Kubernetes OpenAPI schemas (kubernetes-models), KEDA's and
// Prometheus Operator's CRD schemas. Then checks the rules the gateway's deployment relies on: every
// role present, probes, resources, disruption budgets, termination time, autoscaling targets; and
// where an overlay gives the Secrets, that every gateway container starts (the image's ENV plus what
// the manifests give, run through the gateway's own configuration loader, built dist), listens where
// it is probed and scraped, is scraped with its metrics token, stores media where every pod sees it,
// gets only the secrets it uses, and that the database pools at the autoscalers' maxima fit the
// pooler's and Postgres's limits. Needs the built dist (pnpm run build).
// Prints one JSON report on stdout; exits 1 on any problem.
//   node e2e/scripts/validate-k8s.mjs [kustomization dir...]
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import k8s from './k8s-objects.cjs';

const LOOPBACK = /^(127\.|localhost$|::1$|\[::1\]$)/;

/** Secret variables each gateway process uses (a container given any other is over-privileged). */
const SECRET_USE = {
  migrate: [/^DATABASE_URL$/],
  api: [
    /^DATABASE_URL$/,
    /^REDIS_URL$/,
    /^MEDIA_/,
    /^METRICS_TOKEN$/,
    /^(DASHSCOPE|ARK)_/,
    /^UPSTREAM_CHANNELS$/,
    /^(PAYMENT|ALIPAY|WECHATPAY)_/,
    /^SMTP_URL$/,
  ],
  'worker:video': [
    /^DATABASE_URL$/,
    /^REDIS_URL$/,
    /^MEDIA_/,
    /^METRICS_TOKEN$/,
    /^(DASHSCOPE|ARK)_/,
    /^UPSTREAM_CHANNELS$/,
  ],
  'worker:callbacks': [/^DATABASE_URL$/, /^REDIS_URL$/, /^METRICS_TOKEN$/],
  'worker:reconciler': [
    /^DATABASE_URL$/,
    /^REDIS_URL$/,
    /^MEDIA_/,
    /^METRICS_TOKEN$/,
    /^(PAYMENT|ALIPAY|WECHATPAY)_/,
  ],
};

const roleOf = (args) => args.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'video';

const root = k8s.ROOT;
const k8sDir = path.join(root, 'deploy', 'k8s');
const dirs =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [
        path.join(k8sDir, 'base'),
        ...readdirSync(path.join(k8sDir, 'overlays')).map((d) => path.join(k8sDir, 'overlays', d)),
      ].filter((d) => existsSync(path.join(d, 'kustomization.yaml')));

/** The kubernetes-models module of an apiVersion: core `v1`, `apps/v1`, `keda.sh/v1alpha1`... */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('keda.sh/')) return `@kubernetes-models/keda/${apiVersion}`;
  if (apiVersion.startsWith('monitoring.coreos.com/'))
    return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

const problems = [];
const report = [];
for (const dir of dirs) {
  const rel = path.relative(root, dir);
  let objects;
  try {
    objects = k8s.render(dir);
  } catch (err) {
    problems.push(`${rel}: kubectl kustomize failed: ${err.stderr || err.message}`);
    continue;
  }
  const kinds = {};
  for (const obj of objects) {
    const id = `${rel}: ${obj.kind}/${obj.metadata?.name}`;
    kinds[obj.kind] = (kinds[obj.kind] ?? 0) + 1;
    let Model;
    try {
      Model = (await import(modelModule(obj.apiVersion)))[obj.kind];
    } catch {}
    if (!Model) {
      problems.push(`${id}: no schema for ${obj.apiVersion} ${obj.kind}`);
      continue;
    }
    // kustomize wraps long base64 values of Secrets at 76 characters; the API server's decoder skips
    // the line breaks, the schema's `byte` format does not
    if (obj.kind === 'Secret' && obj.data) {
      for (const k of Object.keys(obj.data)) obj.data[k] = String(obj.data[k]).replace(/\s+/g, '');
    }
    try {
      new Model(obj).validate();
    } catch (err) {
      problems.push(`${id}: ${err.message}`);
    }
  }
  problems.push(...rules(rel, objects), ...runRules(rel, objects));
  report.push({ kustomization: rel, objects: objects.length, kinds });
}
process.stdout.write(
  `${JSON.stringify({ ok: problems.length === 0, rendered: report, problems }, null, 2)}\n`,
);
process.exit(problems.length === 0 ? 0 : 1);

/** What the gateway's deployment needs beyond schema validity. */
function rules(rel, objects) {
  const out = [];
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const deployments = byKind('Deployment');
  const config = byKind('ConfigMap').find((c) => c.metadata.name === 'mediagate-config')?.data ?? {};
  const roles = {
    'mediagate-api': ['apps/api/dist/server.js'],
    'mediagate-worker-video': ['apps/worker/dist/main.js', '--role=video'],
    'mediagate-worker-callbacks': ['apps/worker/dist/main.js', '--role=callbacks'],
    'mediagate-reconciler': ['apps/worker/dist/main.js', '--role=reconciler'],
  };
  for (const [name, args] of Object.entries(roles)) {
    const d = deployments.find((x) => x.metadata.name === name);
    if (!d) {
      out.push(`${rel}: no Deployment ${name}`);
      continue;
    }
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    const id = `${rel}: Deployment/${name}`;
    if (!args.every((a) => c.command?.includes(a)))
      out.push(`${rel}: ${name} does not run ${args.join(' ')}`);
    // migrations of this image run before its process starts, on every rollout
    const migrate = (pod.initContainers ?? []).find((i) => k8s.gatewayProcess(i)?.kind === 'migrate');
    if (!migrate) out.push(`${id}: no init container runs the migrations before it starts`);
    else if (migrate.image !== c.image)
      out.push(`${id}: the migrations run from another image than the process`);
    // spread over zones and nodes
    for (const key of ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']) {
      if (!(pod.topologySpreadConstraints ?? []).some((t) => t.topologyKey === key))
        out.push(`${id}: no topologySpreadConstraint on ${key}`);
    }
    // no Kubernetes API token in the pod
    const sa = byKind('ServiceAccount').find(
      (s) => s.metadata.name === (pod.serviceAccountName ?? 'default'),
    );
    if (!pod.serviceAccountName) out.push(`${id}: runs as the namespace's default ServiceAccount`);
    if (pod.automountServiceAccountToken !== false && sa?.automountServiceAccountToken !== false)
      out.push(`${id}: mounts a ServiceAccount token`);
    // a read-only root needs a writable /tmp
    for (const ct of [...(pod.initContainers ?? []), ...pod.containers]) {
      if (!ct.securityContext?.readOnlyRootFilesystem)
        out.push(`${id}: ${ct.name} has a writable root filesystem`);
      const tmp = (ct.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
      const vol = tmp && (pod.volumes ?? []).find((v) => v.name === tmp.name);
      if (!vol?.emptyDir) out.push(`${id}: ${ct.name} has no emptyDir at /tmp`);
    }
    if (!byKind('NetworkPolicy').some((p) => selects(p.spec.podSelector, d.spec.template.metadata.labels)))
      out.push(`${id}: no NetworkPolicy selects its pods`);
  }
  for (const d of deployments) {
    const id = `${rel}: Deployment/${d.metadata.name}`;
    const pod = d.spec.template.spec;
    for (const c of pod.containers) {
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        if (!c[probe]) out.push(`${id}: container ${c.name} has no ${probe}`);
      }
      if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory || !c.resources?.limits?.memory) {
        out.push(`${id}: container ${c.name} lacks cpu/memory requests or a memory limit`);
      }
    }
    const labels = d.spec.template.metadata.labels;
    const pdb = byKind('PodDisruptionBudget').find((p) =>
      Object.entries(p.spec.selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v),
    );
    if (!pdb) out.push(`${id}: no PodDisruptionBudget selects its pods`);
    if (pod.terminationGracePeriodSeconds === undefined) out.push(`${id}: no terminationGracePeriodSeconds`);
    if (d.metadata.name === 'mediagate-api') {
      // the API serves SHUTDOWN_DELAY_MS after SIGTERM, drains for SHUTDOWN_GRACE_MS, then has
      // 10 s to close before it exits on its own (apps/api/src/server.ts): the kubelet's SIGKILL
      // must come later, or a slow close is killed without a word in the log
      const need =
        (Number(config.SHUTDOWN_DELAY_MS ?? 5000) + Number(config.SHUTDOWN_GRACE_MS ?? 10000)) / 1000 + 10;
      if (pod.terminationGracePeriodSeconds <= need) {
        out.push(
          `${id}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} <= ${need} s of delay, grace and closing: the process's own deadline never comes first`,
        );
      }
      const r = pod.containers[0].readinessProbe;
      const noticed = (r.periodSeconds ?? 10) * (r.failureThreshold ?? 3);
      if (Number(config.SHUTDOWN_DELAY_MS ?? 5000) / 1000 < noticed) {
        out.push(
          `${id}: SHUTDOWN_DELAY_MS is shorter than the ${noticed} s the readiness probe takes to notice`,
        );
      }
    }
  }
  if (byKind('Job').some((j) => k8s.gatewayProcess(j.spec.template.spec.containers[0])?.kind === 'migrate')) {
    out.push(
      `${rel}: a migration Job (immutable: the next apply with a new image fails); use the init containers`,
    );
  }
  const scaled = byKind('ScaledObject');
  for (const [target, type] of [
    ['mediagate-worker-video', 'redis'],
    ['mediagate-worker-callbacks', 'redis'],
    ['mediagate-api', 'prometheus'],
  ]) {
    const so = scaled.find((s) => s.spec.scaleTargetRef.name === target);
    if (!so) out.push(`${rel}: no ScaledObject scales ${target}`);
    else if (!so.spec.triggers.some((t) => t.type === type))
      out.push(`${rel}: ${target} is not scaled on ${type}`);
    if (so && !deployments.some((d) => d.metadata.name === target))
      out.push(`${rel}: ScaledObject targets missing ${target}`);
  }
  for (const so of scaled) {
    const d = deployments.find((x) => x.metadata.name === so.spec.scaleTargetRef.name);
    if (d && d.spec.replicas !== undefined)
      out.push(
        `${rel}: Deployment/${d.metadata.name} sets replicas, which KEDA owns (every apply would reset it)`,
      );
  }
  // every queue a video worker runs is scaled on
  const prefix = config.QUEUE_PREFIX ?? '{mediagate}';
  const video = scaled.find((s) => s.spec.scaleTargetRef.name === 'mediagate-worker-video');
  for (const queue of ['video-tasks', 'media-copy']) {
    if (
      video &&
      !video.spec.triggers.some((t) => String(t.metadata?.listName ?? '').includes(`:${queue}:wait`))
    )
      out.push(
        `${rel}: mediagate-worker-video is not scaled on the ${queue} queue (${prefix}:${queue}:wait)`,
      );
  }
  return out;
}

/** Whether a label selector selects `labels`. */
function selects(selector, labels) {
  if (!selector) return false;
  const okLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const okExpr = (selector.matchExpressions ?? []).every((e) => {
    if (e.operator === 'In') return e.values.includes(labels[e.key]);
    if (e.operator === 'NotIn') return !e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return e.key in labels;
    return !(e.key in labels);
  });
  return okLabels && okExpr;
}

/**
 * Where the overlay gives what the pods read (its Secrets exist), what a cluster would run: each
 * gateway container's start-up, listeners, scraping, media storage, secrets and database pools.
 */
function runRules(rel, objects) {
  const out = [];
  const byKind = (kind) => objects.filter((o) => o.kind === kind);
  const deployments = byKind('Deployment');
  const gateway = deployments.filter((d) => k8s.gatewayProcess(d.spec.template.spec.containers[0]));
  // the base names Secrets an overlay provides; check runs only where they are given
  if (!byKind('Secret').length) return out;
  const envs = {};
  for (const d of gateway) {
    const pod = d.spec.template.spec;
    const id = `${rel}: Deployment/${d.metadata.name}`;
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      const proc = k8s.gatewayProcess(c);
      if (!proc) continue;
      const { env, from, problems } = k8s.containerEnv(objects, c, {
        'status.podIP': '10.0.0.10',
        'metadata.name': `${d.metadata.name}-0`,
        'metadata.namespace': d.metadata.namespace ?? 'default',
      });
      for (const p of problems) out.push(`${id}: ${c.name}: ${p}`);
      // 1. it starts: the gateway's own loader on exactly this environment
      for (const issue of k8s.startupIssues(c, env)) out.push(`${id}: ${c.name} exits at start: ${issue}`);
      // least privilege: every secret variable it gets is one its process uses
      const role = proc.kind === 'worker' ? `worker:${roleOf(proc.args)}` : proc.kind;
      for (const [name, source] of Object.entries(from)) {
        if (source.startsWith('Secret/') && !(SECRET_USE[role] ?? []).some((re) => re.test(name)))
          out.push(`${id}: ${c.name} is given ${name} (${source}), which it does not use`);
      }
      if (c === pod.containers[0]) envs[d.metadata.name] = { env, container: c, pod, role };
    }
  }
  for (const [name, { env, container, pod, role }] of Object.entries(envs)) {
    const id = `${rel}: Deployment/${name}`;
    // 2. it listens where it is probed and scraped (the pod IP, not loopback)
    const listeners = {};
    if (role === 'api') {
      listeners[Number(env.PORT ?? 8080)] = env.HOST ?? '0.0.0.0';
      if (env.METRICS_PORT) listeners[Number(env.METRICS_PORT)] = env.METRICS_HOST ?? '127.0.0.1';
    } else if (env.WORKER_HTTP_PORT) {
      listeners[Number(env.WORKER_HTTP_PORT)] = env.WORKER_HTTP_HOST ?? '127.0.0.1';
    }
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const p = container[probe]?.httpGet ?? container[probe]?.tcpSocket;
      if (!p) continue;
      const port = k8s.portNumber(container, p.port);
      if (!(port in listeners)) out.push(`${id}: the ${probe} probes port ${port}, where nothing listens`);
      else if (LOOPBACK.test(listeners[port]))
        out.push(
          `${id}: the ${probe} probes the pod IP, port ${port}, but the process listens on ${listeners[port]}`,
        );
    }
    // 3. Prometheus Operator scrapes its /metrics, with its token
    const labels =
      pod === undefined
        ? {}
        : deployments.find((d) => d.metadata.name === name).spec.template.metadata.labels;
    const monitors = byKind('PodMonitor').filter((m) => selects(m.spec.selector, labels));
    if (!monitors.length)
      out.push(`${id}: no PodMonitor scrapes it (Prometheus Operator ignores prometheus.io annotations)`);
    for (const m of monitors) {
      for (const ep of m.spec.podMetricsEndpoints ?? []) {
        const port = k8s.portNumber(container, ep.port);
        const servesMetrics =
          role === 'api'
            ? env.METRICS_PORT
              ? port === Number(env.METRICS_PORT)
              : port === Number(env.PORT ?? 8080) && !!env.METRICS_TOKEN
            : port === Number(env.WORKER_HTTP_PORT);
        if (!servesMetrics)
          out.push(`${id}: PodMonitor/${m.metadata.name} scrapes port ${ep.port}, which serves no /metrics`);
        else if (LOOPBACK.test(listeners[port] ?? ''))
          out.push(
            `${id}: PodMonitor/${m.metadata.name} scrapes the pod IP, but /metrics listens on ${listeners[port]}`,
          );
        const cred = ep.authorization?.credentials ?? ep.bearerTokenSecret;
        const token = cred && k8s.dataOf(k8s.find(objects, 'Secret', cred.name))?.[cred.key];
        if (env.METRICS_TOKEN && token !== env.METRICS_TOKEN)
          out.push(`${id}: PodMonitor/${m.metadata.name} does not send its METRICS_TOKEN`);
        if (!env.METRICS_TOKEN) out.push(`${id}: /metrics on the pod IP without METRICS_TOKEN`);
      }
    }
    if (
      byKind('ServiceMonitor').some(
        (m) => Object.keys(m.spec.selector?.matchLabels ?? {}).length && selects(m.spec.selector, labels),
      )
    )
      out.push(
        `${id}: a ServiceMonitor relabels the metrics' own service label (exported_service); use a PodMonitor`,
      );
    // 4. media: stored where every API replica and video worker sees it, linked from a public origin
    if (role === 'api' || role === 'worker:video' || role === 'worker:reconciler') {
      if ((env.MEDIA_DRIVER ?? 'local') === 'local') {
        const dir = env.MEDIA_DIR ?? '.data/media';
        const mount = (container.volumeMounts ?? []).find(
          (m) => dir === m.mountPath || dir.startsWith(`${m.mountPath}/`),
        );
        const vol = mount && (pod.volumes ?? []).find((v) => v.name === mount.name);
        const claim =
          vol?.persistentVolumeClaim &&
          k8s.find(objects, 'PersistentVolumeClaim', vol.persistentVolumeClaim.claimName);
        if (!claim?.spec?.accessModes?.includes('ReadWriteMany'))
          out.push(
            `${id}: MEDIA_DRIVER=local stores media in ${dir}, not on a ReadWriteMany volume every replica mounts (use MEDIA_DRIVER=s3)`,
          );
      }
      if (!env.PUBLIC_BASE_URL || /\/\/(127\.|localhost)/.test(env.PUBLIC_BASE_URL))
        out.push(
          `${id}: PUBLIC_BASE_URL is ${env.PUBLIC_BASE_URL ?? 'unset'}: media links would point at the pod itself`,
        );
    }
  }
  out.push(...poolRules(rel, objects, envs));
  return out;
}

/** PgBouncer's ini (as a ConfigMap gives it): its sections, as { section: { key: value } }. */
function parseIni(text) {
  const out = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[;#].*$/, '').trim();
    const s = /^\[(.+)\]$/.exec(line);
    if (s) section = s[1];
    else if (line.includes('=')) {
      const i = line.indexOf('=');
      out[section] = { ...out[section], [line.slice(0, i).trim()]: line.slice(i + 1).trim() };
    }
  }
  return out;
}

/**
 * 5. The pool arithmetic: every gateway process reaches Postgres through a PgBouncer Deployment of
 * the render; client connections at the ScaledObjects' maxima (plus one migration connection per
 * pod) within max_client_conn of one PgBouncer, each database entry's server connections within
 * its pool, and every PgBouncer replica's server connections within Postgres's max_connections
 * (the Deployment's mediagate/postgres-max-connections annotation, minus the reserved ones).
 */
function poolRules(rel, objects, envs) {
  const out = [];
  const bouncer = objects.find(
    (o) => o.kind === 'Deployment' && /pgbouncer/.test(o.spec.template.spec.containers[0].image ?? ''),
  );
  const svc =
    bouncer &&
    objects.find(
      (o) =>
        o.kind === 'Service' &&
        selects({ matchLabels: o.spec.selector }, bouncer.spec.template.metadata.labels),
    );
  const hostOf = (url) => {
    try {
      return new URL(url);
    } catch {
      return undefined;
    }
  };
  const viaBouncer = (url) => {
    const u = hostOf(url);
    return !!u && !!svc && u.hostname.split('.')[0] === svc.metadata.name;
  };
  const scaled = objects.filter((o) => o.kind === 'ScaledObject');
  const maxReplicas = (name) => {
    const so = scaled.find((s) => s.spec.scaleTargetRef.name === name);
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
    return so?.spec.maxReplicaCount ?? d?.spec.replicas ?? 1;
  };
  let clients = 0;
  let pods = 0;
  for (const [name, { env, pod }] of Object.entries(envs)) {
    if (!viaBouncer(env.DATABASE_URL)) {
      out.push(
        `${rel}: Deployment/${name} reaches Postgres directly (${hostOf(env.DATABASE_URL)?.host}), not through PgBouncer`,
      );
      continue;
    }
    const pool = Number(env.DATABASE_POOL_MAX ?? 20);
    clients += maxReplicas(name) * pool;
    pods +=
      maxReplicas(name) *
      (pod.initContainers ?? []).filter((c) => k8s.gatewayProcess(c)?.kind === 'migrate').length;
  }
  if (!bouncer) return out;
  const cm = bouncer.spec.template.spec.volumes
    ?.map((v) => v.configMap && k8s.find(objects, 'ConfigMap', v.configMap.name))
    .find((c) => c && Object.keys(c.data ?? {}).some((k) => k.endsWith('.ini')));
  if (!cm) return [...out, `${rel}: the PgBouncer Deployment mounts no .ini ConfigMap`];
  const ini = parseIni(Object.entries(cm.data).find(([k]) => k.endsWith('.ini'))[1]);
  const pg = ini.pgbouncer ?? {};
  const maxClient = Number(pg.max_client_conn ?? 100);
  const id = `${rel}: PgBouncer`;
  if (clients + pods > maxClient)
    out.push(
      `${id}: ${clients} pooled + ${pods} migration client connections at the autoscalers' maxima exceed max_client_conn ${maxClient}`,
    );
  let server = 0;
  for (const [db, spec] of Object.entries(ini.databases ?? {})) {
    const f = Object.fromEntries([...spec.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    const pool =
      Number(f.pool_size ?? pg.default_pool_size ?? 20) + Number(f.reserve_pool ?? pg.reserve_pool_size ?? 0);
    const cap = Number(f.max_db_connections ?? pg.max_db_connections ?? 0) || pool;
    server += Math.min(pool, cap);
    const mode = f.pool_mode ?? pg.pool_mode ?? 'session';
    // the gateway's processes pool by transaction; the migrations need a session (advisory lock)
    for (const [name, { env }] of Object.entries(envs)) {
      if (
        viaBouncer(env.DATABASE_URL) &&
        hostOf(env.DATABASE_URL).pathname.slice(1) === db &&
        mode !== 'transaction'
      )
        out.push(`${id}: ${name} pools through ${db} in ${mode} mode, not transaction`);
    }
  }
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    for (const c of d.spec.template.spec.initContainers ?? []) {
      if (k8s.gatewayProcess(c)?.kind !== 'migrate') continue;
      const url = hostOf(k8s.containerEnv(objects, c).env.DATABASE_URL ?? '');
      const f = url && viaBouncer(url.href) && ini.databases?.[url.pathname.slice(1)];
      if (f && !/pool_mode=session/.test(f) && (pg.pool_mode ?? 'session') !== 'session')
        out.push(
          `${id}: the migrations of ${d.metadata.name} go through ${url.pathname.slice(1)}, not in session mode (their advisory lock needs one)`,
        );
    }
  }
  const note = bouncer.metadata.annotations ?? {};
  const pgMax = Number(note['mediagate/postgres-max-connections']);
  const reserved = Number(note['mediagate/postgres-reserved-connections'] ?? 3);
  if (!pgMax) out.push(`${id}: no mediagate/postgres-max-connections annotation to check its pools against`);
  const replicas = bouncer.spec.replicas ?? 1;
  if (pgMax && replicas * server + reserved > pgMax)
    out.push(
      `${id}: ${replicas} replicas x ${server} server connections + ${reserved} reserved exceed Postgres's max_connections ${pgMax}`,
    );
  return out;
}
