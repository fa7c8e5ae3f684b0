import { type ChildProcess, spawn } from 'node:child_process';
import IORedis from 'ioredis';
import { freePort, waitFor } from './wait';

export interface OwnRedisServer {
  url: string;
  /** the running server's process id (0 while stopped) */
  readonly pid: number;
  /** starts it again on the same port, empty (no persistence, as after a crash without AOF) */
  start(): Promise<void>;
  /** stops it (SIGTERM by default; SIGKILL for a crash) and waits for it to exit */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** True once a Redis on `port` answers PING. */
async function answers(port: number): Promise<boolean> {
  const probe = new IORedis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * A redis-server of the caller's own on a spare loopback port, without persistence: a test or bench
 * can stop and restart it, or count its CPU and commands, without touching the machine's Redis.
 */
export async function startRedisServer(): Promise<OwnRedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(() => answers(port), { what: `a redis-server on port ${port}`, timeoutMs: 10_000 });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child && child.exitCode === null ? (child.pid ?? 0) : 0;
    },
    start,
    async stop(signal = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((r) => running.once('exit', r));
      running.kill(signal);
      await exited;
    },
  };
}
