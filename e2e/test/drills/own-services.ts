import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startRedisServer, waitFor } from '@mediagate/shared/testing';
import { Client } from 'pg';

/**
 * Drills stop and restart their own Redis and Postgres, never the machine's: a redis-server and
 * a Postgres cluster on spare ports, in temporary directories, removed afterwards.
 */
export async function ownRedis(): Promise<{
  url: string;
  stop: () => Promise<void>;
  start: () => Promise<void>;
}> {
  const server = await startRedisServer();
  // a stop is a crash: killed, and back empty on start
  return { url: server.url, start: server.start, stop: () => server.stop('SIGKILL') };
}

function pgBin(name: string): string {
  const base = '/usr/lib/postgresql';
  for (const v of existsSync(base) ? readdirSync(base).sort().reverse() : []) {
    const p = path.join(base, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  return name;
}

/** Postgres tools refuse to run as root; run them as the postgres user then. */
function asPg(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

export async function ownPostgres(): Promise<{
  url: string;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  destroy: () => Promise<void>;
}> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mg-drill-pg-'));
  const data = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  execFileSync(
    ...asPg(pgBin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']),
    { stdio: 'ignore' },
  );
  const ctl = (args: string[]) =>
    execFileSync(...asPg(pgBin('pg_ctl'), ['-D', data, ...args]), { stdio: 'ignore' });
  const start = async () => {
    ctl([
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
      '-l',
      path.join(dir, 'log'),
      '-w',
      'start',
    ]);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const c = new Client({ connectionString: url });
  await c.connect();
  await c.query('create database test');
  await c.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    start,
    stop: async () => {
      ctl(['-m', 'fast', '-w', 'stop']);
    },
    destroy: async () => {
      try {
        ctl(['-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
