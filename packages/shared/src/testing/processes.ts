import { type ChildProcess, spawn } from 'node:child_process';
import { NODE_FLAGS } from '../config/node-flags';
import { waitFor } from './wait';

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves when the process has exited. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Starts a real process (`node <entry> ...args`) with `env` added, and resolves once `readyUrl`
 * answers 200 (or right away when none is given). Output is kept for failure messages.
 */
export async function startProcess(opts: {
  name: string;
  entry: string;
  args?: string[];
  env: Record<string, string>;
  readyUrl?: string;
  timeoutMs?: number;
  /** flags for node itself besides the shipped NODE_FLAGS, e.g. --cpu-prof (not allowed in NODE_OPTIONS) */
  nodeArgs?: string[];
}): Promise<RunningProcess> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, ...(opts.nodeArgs ?? []), opts.entry, ...(opts.args ?? [])],
    {
      // Tests stop processes with SIGTERM; they need no load-balancer pause unless they ask for one.
      // Test and benchmark stacks run as NODE_ENV=test (development secrets allowed) unless told otherwise.
      env: {
        ...process.env,
        NODE_ENV: process.env.NODE_ENV ?? 'test',
        LOG_LEVEL: 'info',
        SHUTDOWN_DELAY_MS: '0',
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const proc: RunningProcess = {
    name: opts.name,
    child,
    output: () => out,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  if (opts.readyUrl) {
    const url = opts.readyUrl;
    // what the last readiness check answered, for a process that never gets ready
    let lastAnswer = 'no answer yet';
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`${opts.name} exited with ${child.exitCode}`);
          const res = await fetch(url).catch((err: Error) => {
            lastAnswer = `no answer (${err.cause instanceof Error ? err.cause.message : err.message})`;
            return null;
          });
          if (res && res.status !== 200) lastAnswer = `${res.status} ${(await res.text()).slice(0, 500)}`;
          return res?.status === 200;
        },
        { timeoutMs: opts.timeoutMs ?? 20_000, what: `${opts.name} to be ready`, intervalMs: 100 },
      );
    } catch (err) {
      await proc.stop('SIGKILL');
      throw new Error(
        `${(err as Error).message}\n--- ${opts.name} readiness: ${lastAnswer}\n--- ${opts.name} output ---\n${out.slice(-5000)}`,
      );
    }
  }
  return proc;
}
