import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from '@mediagate/shared/testing';

/** A service run by a test: its processes are stopped and its directory removed by `stop`. */
export interface OwnService {
  url: string;
  /** what was started, for the test's report */
  describe: string;
  stop: () => Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** The path of `cmd` (also looked for in /usr/sbin, where Debian puts pgbouncer); throws naming the package. */
function requireCommand(cmd: string, debianPackage: string): string {
  for (const candidate of [cmd, `/usr/sbin/${cmd}`]) {
    try {
      return execFileSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' }).trim();
    } catch {}
  }
  throw new Error(`${cmd} is not installed (Debian: apt-get install -y ${debianPackage})`);
}

/** A Redis Cluster started by a test, with what a failover drill needs. */
export interface OwnRedisCluster extends OwnService {
  /** every node's port */
  ports: number[];
  /** the port of the master that holds `key`'s slot now */
  masterOf(key: string): number;
  /** the ports of the masters now */
  masters(): number[];
  /** kills a node (SIGKILL: a crash) */
  kill(port: number): Promise<void>;
  /** runs redis-cli against a node */
  cli(port: number, args: string[]): string;
}

/**
 * A Redis Cluster of `masters` masters, each with `replicas` replicas, on free loopback ports, each
 * a `redis-server --cluster-enabled yes` in a temporary directory, joined with
 * `redis-cli --cluster create`. Resolves once every node reports `cluster_state:ok`.
 */
export async function startRedisCluster(
  masters = 3,
  opts: { replicas?: number; nodeTimeoutMs?: number } = {},
): Promise<OwnRedisCluster> {
  requireCommand('redis-server', 'redis-server');
  const replicas = opts.replicas ?? 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mg-redis-cluster-'));
  const nodes: Array<{ port: number; child: ChildProcess }> = [];
  const stop = async () => {
    await Promise.all(nodes.map((n) => stopChild(n.child)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      // the cluster bus port is given explicitly: the default (port + 10000) may not exist
      const [port, busPort] = [await freePort(), await freePort()];
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--cluster-port',
          String(busPort),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(opts.nodeTimeoutMs ?? 5000),
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      );
      nodes.push({ port, child });
    }
    const cli = (port: number, args: string[]) =>
      execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    for (const n of nodes) {
      await waitFor(() => cli(n.port, ['ping']).trim() === 'PONG', {
        what: `redis-server on ${n.port}`,
        timeoutMs: 10_000,
      });
    }
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { stdio: 'ignore' },
    );
    for (const n of nodes) {
      await waitFor(() => cli(n.port, ['cluster', 'info']).includes('cluster_state:ok'), {
        what: `cluster_state:ok on ${n.port}`,
        timeoutMs: 20_000,
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const cli = (port: number, args: string[]) =>
    execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  /** CLUSTER SLOTS as [from, to, master port] from any live node */
  const slots = (): Array<[number, number, number]> => {
    for (const n of alive()) {
      try {
        const out = cli(n.port, ['--json', 'cluster', 'slots']);
        return (JSON.parse(out) as Array<[number, number, [string, number]]>).map((r) => [
          r[0],
          r[1],
          Number(r[2][1]),
        ]);
      } catch {}
    }
    throw new Error('no cluster node answers CLUSTER SLOTS');
  };
  return {
    url: `redis://127.0.0.1:${nodes[0]!.port}`,
    describe:
      `Redis Cluster of ${masters} masters` +
      (replicas ? ` with ${replicas} replica${replicas > 1 ? 's' : ''} each` : '') +
      ` on ports ${nodes.map((n) => n.port).join(', ')}`,
    ports: nodes.map((n) => n.port),
    masterOf: (key) => {
      const slot = Number(cli(alive()[0]!.port, ['cluster', 'keyslot', key]).trim());
      const owner = slots().find(([from, to]) => slot >= from && slot <= to);
      if (!owner) throw new Error(`no master holds slot ${slot}`);
      return owner[2];
    },
    masters: () => [...new Set(slots().map((s) => s[2]))],
    kill: async (port) => {
      const n = nodes.find((x) => x.port === port);
      if (n) await stopChild(n.child);
    },
    cli,
    stop,
  };
}

/**
 * A PgBouncer in transaction pooling mode in front of the Postgres of `directUrl` (any database
 * name is passed through), on a free loopback port, with at most `serverConnections` server
 * connections per database. `url(direct)` maps a direct database URL to the same database
 * through the pooler.
 */
export async function startPgBouncer(
  directUrl: string,
  serverConnections = 20,
): Promise<OwnService & { through: (direct: string) => string }> {
  const pgbouncer = requireCommand('pgbouncer', 'pgbouncer');
  const direct = new URL(directUrl);
  const user = decodeURIComponent(direct.username || 'postgres');
  const password = decodeURIComponent(direct.password);
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mg-pgbouncer-'));
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${password}"\n`, { mode: 0o644 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${direct.hostname} port=${direct.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      `default_pool_size = ${serverConnections}`,
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // PgBouncer refuses to run as root
  const asUser =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim()),
          gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim()),
        }
      : {};
  let out = '';
  const child = spawn(pgbouncer, [path.join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...asUser,
  });
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = async () => {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const through = (d: string) => {
    const u = new URL(d);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}: ${out}`);
        const { Client } = await import('pg');
        const c = new Client({ connectionString: through(directUrl) });
        try {
          await c.connect();
          return (await c.query('select 1 as one')).rows[0].one === 1;
        } finally {
          await c.end().catch(() => {});
        }
      },
      { what: 'pgbouncer to accept connections', timeoutMs: 15_000 },
    );
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n--- pgbouncer output ---\n${out}`);
  }
  const version = execFileSync(pgbouncer, ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  return {
    url: through(directUrl),
    describe: `${version}, transaction pooling, ${serverConnections} server connections per database`,
    through,
    stop,
  };
}
