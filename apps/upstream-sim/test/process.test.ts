import { existsSync } from 'node:fs';
import path from 'node:path';
import { freePort, startProcess, waitFor } from '@mediagate/shared/testing';
import { submitVideo } from './helpers';

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
