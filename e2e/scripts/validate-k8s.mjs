#!/usr/bin/env node
// Renders deploy/k8s (the base and every overlay) with `kubectl kustomize`, offline, and validates
// every object against its schema: the Kubernetes OpenAPI schemas (kubernetes-models) and KEDA's CRD
// schemas (@kubernetes-models/keda). Then checks the rules the gateway's deployment relies on (every
// role present, probes, resources, disruption budgets, termination time, autoscaling targets).
// Prints one JSON report on stdout; exits 1 on any problem.
//   node e2e/scripts/validate-k8s.mjs [kustomization dir...]
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = path.resolve(import.meta.dirname, '..', '..');
const k8s = path.join(root, 'deploy', 'k8s');
const dirs =
  process.argv.length > 2
    ? process.argv.slice(2)
    : [
        path.join(k8s, 'base'),
        ...readdirSync(path.join(k8s, 'overlays')).map((d) => path.join(k8s, 'overlays', d)),
      ].filter((d) => existsSync(path.join(d, 'kustomization.yaml')));

/** The kubernetes-models module of an apiVersion: core `v1`, `apps/v1`, `keda.sh/v1alpha1`... */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('keda.sh/')) return `@kubernetes-models/keda/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

const problems = [];
const report = [];
for (const dir of dirs) {
  const rel = path.relative(root, dir);
  let rendered;
  try {
    rendered = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    problems.push(`${rel}: kubectl kustomize failed: ${err.stderr || err.message}`);
    continue;
  }
  const objects = parseAllDocuments(rendered)
    .map((d) => d.toJS())
    .filter(Boolean);
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
  problems.push(...rules(rel, objects));
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
    const c = d.spec.template.spec.containers[0];
    if (!args.every((a) => c.command?.includes(a)))
      out.push(`${rel}: ${name} does not run ${args.join(' ')}`);
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
      // the API serves SHUTDOWN_DELAY_MS after SIGTERM, then drains for SHUTDOWN_GRACE_MS
      const need =
        (Number(config.SHUTDOWN_DELAY_MS ?? 5000) + Number(config.SHUTDOWN_GRACE_MS ?? 10000)) / 1000;
      if (pod.terminationGracePeriodSeconds < need + 5) {
        out.push(
          `${id}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} < ${need} s of delay and grace + 5`,
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
  const jobs = byKind('Job');
  if (!jobs.some((j) => j.spec.template.spec.containers[0].command?.join(' ').includes('migrate-cli.js'))) {
    out.push(`${rel}: no migration Job`);
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
  return out;
}
