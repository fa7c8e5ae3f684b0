// What a cluster makes of deploy/k8s, shared by the manifest check (validate-k8s.mjs) and the test
// that runs an overlay as processes (e2e/test/k8s-cluster.test.ts): the rendered objects, the
// image's ENV, each container's environment exactly as the kubelet builds it, and the gateway's own
// configuration loader run on it.
'use strict';
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { parseAllDocuments } = require('yaml');

const ROOT = path.resolve(__dirname, '..', '..');

/** `kubectl kustomize dir`, parsed. */
function render(dir) {
  const text = execFileSync('kubectl', ['kustomize', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter(Boolean);
}

/** The ENV of the Dockerfile's last stage (what every container of the image starts with). */
function imageEnv(dockerfile = path.join(ROOT, 'Dockerfile')) {
  const lines = readFileSync(dockerfile, 'utf8').replace(/\\\n/g, ' ').split('\n');
  let env = {};
  for (const line of lines) {
    const t = line.trim();
    if (/^FROM\s/i.test(t)) env = {};
    const m = /^ENV\s+(.*)$/i.exec(t);
    if (!m) continue;
    // KEY=value pairs; values may be double-quoted
    for (const [, k, q, v] of m[1].matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(?:"((?:[^"\\]|\\.)*)"|(\S*))/g)) {
      env[k] =
        q !== undefined ? q.replace(/\\(.)/g, '$1') : v.replace(/\$\{?(\w+)\}?/g, (_, n) => env[n] ?? '');
    }
  }
  return env;
}

const find = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata?.name === name);

/** The string values of a Secret or ConfigMap (Secret data decoded). */
function dataOf(obj) {
  if (!obj) return undefined;
  const out = {};
  if (obj.kind === 'Secret') {
    for (const [k, v] of Object.entries(obj.data ?? {}))
      out[k] = Buffer.from(String(v).replace(/\s+/g, ''), 'base64').toString('utf8');
    for (const [k, v] of Object.entries(obj.stringData ?? {})) out[k] = String(v);
  } else {
    for (const [k, v] of Object.entries(obj.data ?? {})) out[k] = String(v);
  }
  return out;
}

/**
 * A container's environment as the kubelet builds it: the image's ENV, then envFrom in order, then
 * env (which wins), `$(VAR)` references expanded. `fields` gives the downward API values
 * (status.podIP, metadata.name...). Returns the environment, where each variable came from, and
 * references that would keep the container from starting.
 */
function containerEnv(objects, container, fields = {}, image = imageEnv()) {
  const env = { ...image };
  const from = Object.fromEntries(Object.keys(image).map((k) => [k, 'image']));
  const problems = [];
  for (const src of container.envFrom ?? []) {
    const ref = src.secretRef ?? src.configMapRef;
    const kind = src.secretRef ? 'Secret' : 'ConfigMap';
    const data = dataOf(find(objects, kind, ref.name));
    if (!data) {
      if (!ref.optional) problems.push(`${kind} ${ref.name} does not exist`);
      continue;
    }
    for (const [k, v] of Object.entries(data)) {
      env[(src.prefix ?? '') + k] = v;
      from[(src.prefix ?? '') + k] = `${kind}/${ref.name}`;
    }
  }
  for (const e of container.env ?? []) {
    if ('value' in e) {
      env[e.name] = String(e.value ?? '').replace(/\$\((\w+)\)/g, (m, n) => env[n] ?? m);
      from[e.name] = 'env';
      continue;
    }
    const vf = e.valueFrom ?? {};
    const keyRef = vf.secretKeyRef ?? vf.configMapKeyRef;
    if (keyRef) {
      const kind = vf.secretKeyRef ? 'Secret' : 'ConfigMap';
      const value = dataOf(find(objects, kind, keyRef.name))?.[keyRef.key];
      if (value === undefined) {
        if (!keyRef.optional) problems.push(`${e.name}: ${kind} ${keyRef.name} has no key ${keyRef.key}`);
        continue;
      }
      env[e.name] = value;
      from[e.name] = `${kind}/${keyRef.name}`;
    } else if (vf.fieldRef) {
      const value = fields[vf.fieldRef.fieldPath];
      if (value === undefined) problems.push(`${e.name}: unsupported fieldRef ${vf.fieldRef.fieldPath}`);
      else {
        env[e.name] = value;
        from[e.name] = 'fieldRef';
      }
    }
  }
  return { env, from, problems };
}

/** The number of a probe's or monitor's port (a name of the container's ports, or a number). */
function portNumber(container, port) {
  if (typeof port === 'number' || /^\d+$/.test(String(port))) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

/** The gateway processes, by the entry in their command. */
const ENTRIES = {
  'apps/api/dist/server.js': 'api',
  'apps/worker/dist/main.js': 'worker',
  'packages/shared/dist/db/migrate-cli.js': 'migrate',
};

/** `api`, `worker` or `migrate` for a container of the gateway; undefined for anything else. */
function gatewayProcess(container) {
  const args = [...(container.command ?? []), ...(container.args ?? [])];
  for (const [entry, kind] of Object.entries(ENTRIES)) if (args.includes(entry)) return { kind, args };
  return undefined;
}

/**
 * What the gateway's own configuration loader says of `env` for this container: the lines of the
 * start-up error it would exit with (empty: it starts). Reads the built dist of the checkout.
 */
function startupIssues(container, env) {
  const proc = gatewayProcess(container);
  if (!proc) return [];
  const { configIssues } = require(path.join(ROOT, 'packages/shared/dist/config/env.js'));
  const run = (fn) => {
    try {
      fn();
      return [];
    } catch (err) {
      return String(err.message)
        .split('\n')
        .slice(1)
        .map((l) => l.trim());
    }
  };
  if (proc.kind === 'api') {
    const { loadApiConfig } = require(path.join(ROOT, 'apps/api/dist/config.js'));
    return run(() => loadApiConfig(env));
  }
  if (proc.kind === 'worker') {
    const { loadWorkerConfig } = require(path.join(ROOT, 'apps/worker/dist/config.js'));
    const args = proc.args.slice(proc.args.indexOf('apps/worker/dist/main.js') + 1);
    return run(() => loadWorkerConfig(args, env));
  }
  const { baseEnvSchema } = require(path.join(ROOT, 'packages/shared/dist/config/env.js'));
  const { MIGRATE_REQUIRED_IN_PRODUCTION } = require(
    path.join(ROOT, 'packages/shared/dist/db/migrate-config.js'),
  );
  return configIssues(baseEnvSchema, env, { requiredInProduction: MIGRATE_REQUIRED_IN_PRODUCTION }).map(
    (i) => `${i.name}: ${i.message}`,
  );
}

module.exports = {
  ROOT,
  render,
  imageEnv,
  find,
  dataOf,
  containerEnv,
  portNumber,
  gatewayProcess,
  startupIssues,
};
