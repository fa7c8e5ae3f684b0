import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import * as k8s from '../../scripts/k8s-objects.cjs';

/**
 * A cluster on this machine, as processes: what the kubelet, kube-proxy and cluster DNS would do
 * with rendered manifests. Each pod has a network namespace of its own (a veth on one bridge, its
 * own IP), a mount namespace with the root filesystem read-only and its volumes mounted, runs as the
 * manifest's user, with exactly the environment the manifest gives (the image's ENV, ConfigMaps,
 * Secrets, env). Probes run against the pod IP with the manifest's periods and thresholds; a
 * Service is a TCP proxy on an IP of its own to the ready pods it selects; names resolve through
 * each pod's /etc/hosts. Needs root, iproute2, util-linux (unshare, setpriv, mount).
 */

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects as parsed YAML
type Obj = any;

/** Where the image's files are: the checkout (WORKDIR /app), with the toolchain's Node first. */
const TOOLCHAIN_BIN = path.dirname(process.execPath);
const BASE_IMAGE_ENV = {
  // node:24-bookworm-slim's PATH, its node being the toolchain's
  PATH: `${TOOLCHAIN_BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
  HOME: '/home/node',
};

export interface Container {
  name: string;
  proc?: ChildProcess;
  restarts: number;
  exits: Array<{ code: number | null; signal: string | null; at: number }>;
  output: string;
  started: boolean;
  ready: boolean;
  live: boolean;
}

export interface Pod {
  name: string;
  deployment: string;
  ip: string;
  netns: string;
  labels: Record<string, string>;
  spec: Obj;
  containers: Container[];
  terminating: boolean;
  initDone: boolean;
  env: Record<string, Record<string, string>>;
  timers: NodeJS.Timeout[];
  /** host directories of the pod's volumes */
  volumes: Record<string, string>;
  /** ms from creation to ready */
  readyAfterMs?: number;
  createdAt: number;
}

export class Cluster {
  readonly id = randomBytes(3).toString('hex');
  readonly bridge = `mgk${this.id}`;
  readonly subnet: string;
  readonly dir: string;
  readonly pods: Pod[] = [];
  readonly services = new Map<string, { ip: string; proxies: net.Server[] }>();
  readonly log: string[] = [];
  private nextPod = 10;
  private nextSvc = 200;
  private hostsEntries: string[] = [];
  private closed = false;
  private sockets = new Set<net.Socket>();

  constructor(
    public objects: Obj[],
    public namespace: string,
    private stand: (pod: Pod, container: Obj) => { command: string[] } | undefined,
  ) {
    this.subnet = `10.${200 + (randomBytes(1)[0]! % 50)}.${randomBytes(1)[0]}`;
    // not under /tmp: pods mount an emptyDir over /tmp, which would hide their volumes
    this.dir = path.join('/var/tmp', `mgk-${this.id}`);
    mkdirSync(this.dir, { recursive: true });
    chmodSync(this.dir, 0o755);
    sh('ip', ['link', 'add', this.bridge, 'type', 'bridge']);
    // A bridge left to itself takes the lowest MAC of its ports, so deleting a pod (its veth) can
    // change the MAC every pod has cached for the Service IPs on the bridge: their packets then go
    // to a MAC nobody answers until the ARP entries are probed again, seconds in which every
    // connection to a Service stalls (a rollout's first deleted pod cut the API from PgBouncer).
    // An address set here stays whatever ports come and go, as a node's own address does.
    const mac = `02:${randomBytes(5).toString('hex').match(/../g)!.join(':')}`;
    sh('ip', ['link', 'set', this.bridge, 'address', mac]);
    sh('ip', ['addr', 'add', `${this.subnet}.1/24`, 'dev', this.bridge]);
    sh('ip', ['link', 'set', this.bridge, 'up']);
  }

  get gateway(): string {
    return `${this.subnet}.1`;
  }

  /** An IP on the bridge for a Service (or a provider outside the manifests), with its DNS names. */
  addServiceIp(name: string, namespace = this.namespace): string {
    const ip = `${this.subnet}.${this.nextSvc++}`;
    sh('ip', ['addr', 'add', `${ip}/32`, 'dev', this.bridge]);
    const names = [
      `${name}.${namespace}.svc.cluster.local`,
      `${name}.${namespace}.svc`,
      `${name}.${namespace}`,
    ];
    if (namespace === this.namespace) names.push(name);
    this.hostsEntries.push(`${ip} ${names.join(' ')}`);
    this.services.set(`${namespace}/${name}`, { ip, proxies: [] });
    return ip;
  }

  /** The address a cluster name resolves to (the hosts files' table). */
  resolve(host: string): string | undefined {
    for (const line of this.hostsEntries) {
      const [ip, ...names] = line.split(' ');
      if (names.includes(host)) return ip;
    }
    return undefined;
  }

  /** Every Service of the render: an IP, and a proxy per port to the ready pods it selects. */
  startServices(): void {
    for (const svc of this.objects.filter((o) => o.kind === 'Service')) {
      const ip = this.addServiceIp(svc.metadata.name);
      const entry = this.services.get(`${this.namespace}/${svc.metadata.name}`)!;
      for (const port of svc.spec.ports) {
        let next = 0;
        const server = net.createServer((client) => {
          const ready = this.pods.filter(
            (p) =>
              !p.terminating && selects(svc.spec.selector, p.labels) && p.containers.every((c) => c.ready),
          );
          if (!ready.length) return client.destroy();
          const pod = ready[next++ % ready.length]!;
          const target = k8s.portNumber(
            podContainerWithPort(pod, port.targetPort),
            port.targetPort ?? port.port,
          );
          const upstream = net.connect(target!, pod.ip);
          this.sockets.add(client).add(upstream);
          client.on('close', () => this.sockets.delete(client));
          upstream.on('close', () => this.sockets.delete(upstream));
          client.pipe(upstream).pipe(client);
          const end = () => {
            client.destroy();
            upstream.destroy();
          };
          upstream.on('error', end);
          client.on('error', end);
        });
        server.listen(port.port, ip);
        entry.proxies.push(server);
      }
    }
  }

  /** Creates a pod of `deployment` (its pod template as the render gives it) and starts it. */
  createPod(deployment: Obj): Pod {
    const n = this.nextPod++;
    const ip = `${this.subnet}.${n}`;
    const name = `${deployment.metadata.name}-${randomBytes(3).toString('hex')}`;
    const netns = `mgk${this.id}-${n}`;
    const veth = `mgk${this.id}v${n}`;
    sh('ip', ['netns', 'add', netns]);
    sh('ip', ['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
    sh('ip', ['link', 'set', veth, 'master', this.bridge, 'up']);
    const inNs = (...args: string[]) => sh('ip', ['netns', 'exec', netns, 'ip', ...args]);
    inNs('addr', 'add', `${ip}/24`, 'dev', 'eth0');
    inNs('link', 'set', 'eth0', 'up');
    inNs('link', 'set', 'lo', 'up');
    inNs('route', 'add', 'default', 'via', this.gateway);
    // cluster DNS: `ip netns exec` binds /etc/netns/<name>/hosts over /etc/hosts
    mkdirSync(`/etc/netns/${netns}`, { recursive: true });
    writeFileSync(
      `/etc/netns/${netns}/hosts`,
      ['127.0.0.1 localhost', `${ip} ${name}`, ...this.hostsEntries, ''].join('\n'),
    );
    const spec = deployment.spec.template.spec;
    const pod: Pod = {
      name,
      deployment: deployment.metadata.name,
      ip,
      netns,
      labels: deployment.spec.template.metadata.labels ?? {},
      spec,
      containers: [],
      terminating: false,
      initDone: false,
      env: {},
      timers: [],
      volumes: {},
      createdAt: Date.now(),
    };
    this.pods.push(pod);
    this.preparevolumes(pod);
    void this.runPod(pod);
    return pod;
  }

  private preparevolumes(pod: Pod): void {
    for (const vol of pod.spec.volumes ?? []) {
      const dir = path.join(this.dir, pod.name, vol.name);
      mkdirSync(dir, { recursive: true });
      pod.volumes[vol.name] = dir;
      if (vol.emptyDir) {
        chmodSync(dir, 0o1777);
      } else if (vol.configMap || vol.secret) {
        const obj = vol.configMap
          ? k8s.find(this.objects, 'ConfigMap', vol.configMap.name)
          : k8s.find(this.objects, 'Secret', vol.secret.secretName);
        for (const [key, value] of Object.entries(k8s.dataOf(obj) ?? {})) {
          writeFileSync(path.join(dir, key), value, { mode: 0o644 });
        }
        chmodSync(dir, 0o755);
      }
    }
  }

  private async runPod(pod: Pod): Promise<void> {
    for (const c of pod.spec.initContainers ?? []) {
      const state = this.containerState(pod, c.name);
      for (;;) {
        if (pod.terminating || this.closed) return;
        const code = await new Promise<number | null>((resolve) => {
          const proc = this.spawnContainer(pod, c, state);
          proc.on('exit', (code) => resolve(code));
        });
        // a completed init container holds no readiness back
        if (code === 0) {
          state.ready = true;
          break;
        }
        state.restarts += 1;
        await sleep(Math.min(10_000 * 2 ** (state.restarts - 1), 60_000));
      }
      state.started = true;
    }
    pod.initDone = true;
    for (const c of pod.spec.containers) this.startContainer(pod, c);
  }

  private containerState(pod: Pod, name: string): Container {
    let state = pod.containers.find((c) => c.name === name);
    if (!state) {
      state = { name, restarts: 0, exits: [], output: '', started: false, ready: false, live: true };
      pod.containers.push(state);
    }
    return state;
  }

  /** Runs a main container: restarted when it exits (CrashLoopBackOff) or its probes say so. */
  private startContainer(pod: Pod, c: Obj): void {
    const state = this.containerState(pod, c.name);
    if (pod.terminating || this.closed) return;
    state.started = false;
    state.ready = false;
    const proc = this.spawnContainer(pod, c, state);
    const generation = state.restarts;
    proc.on('exit', () => {
      if (pod.terminating || this.closed) return;
      state.restarts += 1;
      state.ready = false;
      const backoff = Math.min(10_000 * 2 ** (state.restarts - 1), 300_000);
      pod.timers.push(setTimeout(() => this.startContainer(pod, c), backoff));
    });
    this.probe(pod, c, state, generation);
  }

  private probe(pod: Pod, c: Obj, state: Container, generation: number): void {
    const alive = () => !pod.terminating && !this.closed && state.restarts === generation;
    const run = (probe: Obj, onResult: (ok: boolean) => void) => {
      const period = (probe.periodSeconds ?? 10) * 1000;
      const tick = async () => {
        if (!alive()) return;
        onResult(await this.check(pod, c, probe));
        if (alive()) pod.timers.push(setTimeout(tick, period));
      };
      pod.timers.push(setTimeout(tick, (probe.initialDelaySeconds ?? 0) * 1000));
    };
    const restart = (why: string) => {
      this.log.push(`${new Date().toISOString()} ${pod.name}/${c.name}: ${why}; restarting`);
      state.output += `\n[cluster] ${why}; restarting\n`;
      state.proc?.kill('SIGKILL');
    };
    const afterStartup = () => {
      state.started = true;
      pod.readyAfterMs ??= undefined;
      if (c.readinessProbe) {
        let failures = 0;
        let successes = 0;
        run(c.readinessProbe, (ok) => {
          failures = ok ? 0 : failures + 1;
          successes = ok ? successes + 1 : 0;
          const was = state.ready;
          if (ok && successes >= (c.readinessProbe.successThreshold ?? 1)) state.ready = true;
          if (failures >= (c.readinessProbe.failureThreshold ?? 3)) state.ready = false;
          if (was !== state.ready)
            this.log.push(
              `${new Date().toISOString()} ${pod.name}/${c.name}: ${state.ready ? 'ready' : 'not ready'}`,
            );
          if (state.ready && pod.containers.every((x) => x.ready))
            pod.readyAfterMs ??= Date.now() - pod.createdAt;
        });
      } else {
        state.ready = true;
        pod.readyAfterMs ??= Date.now() - pod.createdAt;
      }
      if (c.livenessProbe) {
        let failures = 0;
        run(c.livenessProbe, (ok) => {
          failures = ok ? 0 : failures + 1;
          if (failures >= (c.livenessProbe.failureThreshold ?? 3)) restart('liveness probe failed');
        });
      }
    };
    if (c.startupProbe) {
      let failures = 0;
      let done = false;
      run(c.startupProbe, (ok) => {
        if (done) return;
        if (ok) {
          done = true;
          afterStartup();
          return;
        }
        failures += 1;
        if (failures >= (c.startupProbe.failureThreshold ?? 3)) {
          done = true;
          restart('startup probe failed');
        }
      });
    } else afterStartup();
  }

  /** One probe, from the node (this namespace) to the pod IP. */
  private check(pod: Pod, c: Obj, probe: Obj): Promise<boolean> {
    const timeout = (probe.timeoutSeconds ?? 1) * 1000;
    if (probe.httpGet) {
      const port = k8s.portNumber(c, probe.httpGet.port)!;
      return new Promise((resolve) => {
        const req = http.get({ host: pod.ip, port, path: probe.httpGet.path ?? '/', timeout }, (res) => {
          res.resume();
          resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 400);
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
      });
    }
    if (probe.tcpSocket) {
      const port = k8s.portNumber(c, probe.tcpSocket.port)!;
      return new Promise((resolve) => {
        const s = net.connect({ host: pod.ip, port, timeout });
        s.on('connect', () => {
          s.destroy();
          resolve(true);
        });
        s.on('timeout', () => {
          s.destroy();
          resolve(false);
        });
        s.on('error', () => resolve(false));
      });
    }
    return Promise.resolve(true);
  }

  /** Starts one container's process in the pod's namespaces, as its user, with its environment. */
  private spawnContainer(pod: Pod, c: Obj, state: Container): ChildProcess {
    const { env, problems } = k8s.containerEnv(
      this.objects,
      c,
      { 'status.podIP': pod.ip, 'metadata.name': pod.name, 'metadata.namespace': this.namespace },
      { ...BASE_IMAGE_ENV, ...k8s.imageEnv() },
    );
    if (problems.length) throw new Error(`${pod.name}/${c.name}: ${problems.join('; ')}`);
    // enableServiceLinks (default true): the Services' environment variables
    if (pod.spec.enableServiceLinks !== false) {
      for (const svc of this.objects.filter((o) => o.kind === 'Service')) {
        const s = this.services.get(`${this.namespace}/${svc.metadata.name}`);
        const n = svc.metadata.name.toUpperCase().replace(/-/g, '_');
        const p = svc.spec.ports[0];
        if (!s) continue;
        env[`${n}_SERVICE_HOST`] ??= s.ip;
        env[`${n}_SERVICE_PORT`] ??= String(p.port);
        env[`${n}_PORT`] ??= `tcp://${s.ip}:${p.port}`;
      }
    }
    env.HOSTNAME ??= pod.name;
    pod.env[c.name] = env;
    const standIn = this.stand(pod, c);
    const command = standIn?.command ?? [...(c.command ?? []), ...(c.args ?? [])];
    const sec = { ...pod.spec.securityContext, ...c.securityContext };
    const mounts: string[] = [];
    const wanted = (c.volumeMounts ?? []).filter((m: Obj) => pod.volumes[m.name]);
    // paths the host lacks: a tmpfs over their nearest existing ancestor below the top level
    const tmpfs = new Set<string>();
    for (const m of wanted) {
      if (existsSync(m.mountPath)) continue;
      let anc = path.dirname(m.mountPath);
      while (!existsSync(anc)) anc = path.dirname(anc);
      if (anc.split('/').length >= 3) tmpfs.add(anc);
    }
    for (const anc of tmpfs) mounts.push(`mount -t tmpfs -o size=1m,mode=755 tmpfs ${q(anc)}`);
    for (const m of wanted) {
      const src = pod.volumes[m.name]!;
      const from = m.subPath ? path.join(src, m.subPath) : src;
      const target: string = m.mountPath;
      const covered = [...tmpfs].some((anc) => target.startsWith(`${anc}/`));
      // never over /, /etc, /usr...: a stand-in is given the volume's directory instead
      if (!covered && !existsSync(target)) {
        // its directory stays writable under the read-only root
        mounts.push(`mount --bind ${q(from)} ${q(from)}`);
        continue;
      }
      if (covered) {
        mounts.push(
          m.subPath ? `mkdir -p ${q(path.dirname(target))}; touch ${q(target)}` : `mkdir -p ${q(target)}`,
        );
      }
      mounts.push(`mount --bind ${q(from)} ${q(target)}`);
      if (m.readOnly) mounts.push(`mount -o remount,bind,ro ${q(target)}`);
    }
    // The checkout stands in for the image's files. When it lies under a volume's mount path (a
    // clone under /tmp, where the pod mounts an emptyDir), it is bound back in at its own path.
    const stage = path.join(this.dir, pod.name, `.checkout-${c.name}`);
    mkdirSync(stage, { recursive: true });
    mounts.unshift(`mount --bind ${q(k8s.ROOT)} ${q(stage)}`);
    mounts.push(
      `[ -e ${q(path.join(k8s.ROOT, 'package.json'))} ] || { mkdir -p ${q(k8s.ROOT)}; mount --bind ${q(stage)} ${q(k8s.ROOT)}; }`,
    );
    const rootRo = sec.readOnlyRootFilesystem ? ['mount -o remount,bind,ro /'] : [];
    const uid = sec.runAsUser ?? 0;
    const gid = sec.runAsGroup ?? uid;
    const script = [
      'set -e',
      ...mounts,
      ...rootRo,
      `cd ${q(k8s.ROOT)}`,
      `exec /usr/bin/setpriv --reuid=${uid} --regid=${gid} --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all /usr/bin/env -i "$@"`,
    ].join('\n');
    const envPairs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    const proc = spawn(
      'ip',
      [
        'netns',
        'exec',
        pod.netns,
        'unshare',
        '-m',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        script,
        'sh',
        ...envPairs,
        ...command,
      ],
      { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    state.proc = proc;
    const keep = (chunk: Buffer) => {
      state.output = (state.output + chunk.toString()).slice(-40_000);
    };
    proc.stdout!.on('data', keep);
    proc.stderr!.on('data', keep);
    proc.on('exit', (code, signal) => state.exits.push({ code, signal, at: Date.now() }));
    return proc;
  }

  /**
   * Deletes a pod as Kubernetes does: out of every Service at once, SIGTERM to its containers, and
   * SIGKILL once terminationGracePeriodSeconds have passed. Resolves with how long each took.
   */
  async deletePod(pod: Pod): Promise<{ exitedAfterMs: number; killed: boolean }> {
    pod.terminating = true;
    this.log.push(`${new Date().toISOString()} ${pod.name}: deleted`);
    for (const t of pod.timers) clearTimeout(t);
    const grace = (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    const started = Date.now();
    let killed = false;
    await Promise.all(
      pod.containers.map(async (c) => {
        const proc = c.proc;
        if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => {
          killed = true;
          proc.kill('SIGKILL');
        }, grace);
        await exited;
        clearTimeout(timer);
      }),
    );
    const exitedAfterMs = Date.now() - started;
    this.removeNetns(pod);
    return { exitedAfterMs, killed };
  }

  private removeNetns(pod: Pod): void {
    try {
      sh('ip', ['netns', 'del', pod.netns]);
    } catch {}
    rmSync(`/etc/netns/${pod.netns}`, { recursive: true, force: true });
  }

  /** Waits until `pod` is ready, or throws with what its containers said. */
  async waitReady(pod: Pod, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (pod.initDone && pod.containers.length && pod.containers.every((c) => c.ready)) return;
      await sleep(200);
    }
    throw new Error(`pod ${pod.name} not ready after ${timeoutMs} ms:\n${this.describe(pod)}`);
  }

  /** What kubectl describe and logs would show of a pod. */
  describe(pod: Pod): string {
    return pod.containers
      .map(
        (c) =>
          `--- ${pod.name}/${c.name}: started=${c.started} ready=${c.ready} restarts=${c.restarts} exits=${JSON.stringify(c.exits.map((e) => e.code ?? e.signal))}\n${c.output.slice(-3000)}`,
      )
      .join('\n');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.pods
        .filter((p) => !p.terminating)
        .map(async (p) => {
          p.terminating = true;
          for (const t of p.timers) clearTimeout(t);
          for (const c of p.containers) c.proc?.kill('SIGKILL');
          await sleep(300);
          this.removeNetns(p);
        }),
    );
    for (const { proxies } of this.services.values()) for (const s of proxies) s.close();
    for (const s of this.sockets) s.destroy();
    try {
      sh('ip', ['link', 'del', this.bridge]);
    } catch {}
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function podContainerWithPort(pod: Pod, port: string | number): Obj {
  return (
    pod.spec.containers.find((c: Obj) => k8s.portNumber(c, port) !== undefined) ?? pod.spec.containers[0]
  );
}

/** Whether a Service's selector (plain labels) selects `labels`. */
export function selects(
  selector: Record<string, string> | undefined,
  labels: Record<string, string>,
): boolean {
  return !!selector && Object.entries(selector).every(([k, v]) => labels[k] === v);
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
