import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startProcess, waitFor } from '@mediagate/shared/testing';
import { CONTROL_TOKEN, KEY, queryVideo, submitVideo } from './helpers';

const controlAuth = { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } };

const ENTRY = path.join(__dirname, '..', 'dist', 'main.js');

describe('the built process (dist/main.js)', () => {
  beforeAll(() => {
    if (!existsSync(ENTRY))
      throw new Error(`${ENTRY} is missing: run \`pnpm --filter @mediagate/upstream-sim build\``);
  });

  it('serves /healthz and the vendor APIs, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = await startProcess({
      name: 'upstream-sim',
      entry: ENTRY,
      env: { SIM_PORT: String(port), SIM_HOST: '127.0.0.1', SIM_API_KEYS: 'sk-sim-test' },
      readyUrl: `${base}/healthz`,
    });
    try {
      const res = await submitVideo(base);
      expect(res.status).toBe(200);
      expect(proc.output()).toContain('upstream-sim listening');
    } finally {
      expect(await proc.stop('SIGTERM')).toBe(0);
    }
    expect(proc.output()).toContain('shut down cleanly');
  });

  it('listens on loopback only by default, and its control API needs the token', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = await startProcess({
      name: 'upstream-sim-defaults',
      entry: ENTRY,
      env: { SIM_PORT: String(port), SIM_CONTROL_TOKEN: CONTROL_TOKEN },
      readyUrl: `${base}/healthz`,
    });
    try {
      // the machine's own network addresses do not reach it
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && a.family === 'IPv4')
        .map((a) => a!.address);
      for (const address of external) {
        await expect(fetch(`http://${address}:${port}/healthz`)).rejects.toThrow();
      }
      expect((await fetch(`${base}/_control/stats`)).status).toBe(401);
      const wrong = await fetch(`${base}/_control/reset`, {
        method: 'POST',
        headers: { authorization: 'Bearer not-the-control-token' },
      });
      expect(wrong.status).toBe(401);
      expect((await fetch(`${base}/_control/stats`, controlAuth)).status).toBe(200);
    } finally {
      await proc.stop('SIGTERM');
    }
  });

  it('without SIM_CONTROL_TOKEN the control API is off', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = await startProcess({
      name: 'upstream-sim-no-token',
      entry: ENTRY,
      env: { SIM_PORT: String(port), SIM_CONTROL_TOKEN: '' },
      readyUrl: `${base}/healthz`,
    });
    try {
      const res = await fetch(`${base}/_control/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer anything-at-all-here' },
        body: JSON.stringify({ api: 'video.submit', outage: true }),
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
        'SIM_CONTROL_TOKEN',
      );
    } finally {
      await proc.stop('SIGTERM');
    }
  });

  it('refuses to start on a bad variable, naming it', async () => {
    const proc = await startProcess({
      name: 'upstream-sim-bad-env',
      entry: ENTRY,
      env: { SIM_PORT: '8090', SIM_VIDEO_PENDING_MS: 'soon' },
    });
    const code = await waitFor(() => proc.child.exitCode, { what: 'the process to exit' });
    expect(code).toBe(1);
    expect(proc.output()).toContain('SIM_VIDEO_PENDING_MS');
    expect(proc.output()).toContain('invalid configuration');
  });
});

describe('SIM_STATE_FILE', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mg-sim-state-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (port: number, file: string) =>
    startProcess({
      name: 'upstream-sim',
      entry: ENTRY,
      env: {
        SIM_PORT: String(port),
        SIM_HOST: '127.0.0.1',
        SIM_STATE_FILE: file,
        SIM_CONTROL_TOKEN: CONTROL_TOKEN,
        SIM_VIDEO_PENDING_MS: '300',
        SIM_VIDEO_RUNNING_MS: '1500',
        SIM_DASHSCOPE_SUBMIT_RPS: '0',
        SIM_DASHSCOPE_MAX_RUNNING: '0',
      },
      readyUrl: `http://127.0.0.1:${port}/healthz`,
    });
  const status = async (base: string, id: string) =>
    (await queryVideo(base, id)).body.output as { task_status: string; video_url?: string };

  it('a killed and restarted simulator finishes the tasks it had accepted, on their schedule', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const file = path.join(dir, 'nested', 'tasks.json');
    const first = await start(port, file);
    const running = (await submitVideo(base)).body.output.task_id as string;
    const canceled = (await submitVideo(base)).body.output.task_id as string;
    const cancel = await fetch(`${base}/api/v1/tasks/${canceled}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(cancel.status).toBe(200);
    const schedule = async () => {
      const t = (await (await fetch(`${base}/_control/tasks/${running}`, controlAuth)).json()) as Record<
        string,
        string
      >;
      return [t.submitted_at, t.scheduled_at, t.ends_at];
    };
    const before = await schedule();
    await first.stop('SIGKILL');

    const second = await start(port, file);
    try {
      expect(await schedule()).toEqual(before);
      const done = await waitFor(
        async () => {
          const s = await status(base, running);
          return s.task_status === 'SUCCEEDED' ? s : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'the restored task to succeed' },
      );
      expect(done.video_url).toMatch(/^http/);
      expect((await status(base, canceled)).task_status).toBe('CANCELED');
      // the file was compacted to the live tasks, one line each
      expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  });

  it('without it, a restarted simulator knows none of them (the default in tests)', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { SIM_PORT: String(port), SIM_HOST: '127.0.0.1' };
    const first = await startProcess({
      name: 'upstream-sim',
      entry: ENTRY,
      env,
      readyUrl: `${base}/healthz`,
    });
    const id = (await submitVideo(base)).body.output.task_id as string;
    await first.stop('SIGKILL');
    const second = await startProcess({
      name: 'upstream-sim',
      entry: ENTRY,
      env,
      readyUrl: `${base}/healthz`,
    });
    try {
      expect((await queryVideo(base, id)).body.output.task_status).toBe('UNKNOWN');
    } finally {
      await second.stop('SIGTERM');
    }
  });
});
