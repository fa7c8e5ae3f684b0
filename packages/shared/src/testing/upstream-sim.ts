import { randomBytes } from 'node:crypto';
import { startProcess } from './processes';
import { PROCESS_ENTRIES } from './stack';
import { freePort } from './wait';

export interface RunningSim {
  url: string;
  /** the control API's token (SIM_CONTROL_TOKEN) */
  controlToken: string;
  /** calls the simulator's /_control API; throws on a non-2xx answer */
  // biome-ignore lint/suspicious/noExplicitAny: control answers are free-form JSON
  control: (method: string, path: string, body?: unknown) => Promise<Record<string, any>>;
  // biome-ignore lint/suspicious/noExplicitAny: see control
  stats: () => Promise<Record<string, any>>;
  /** adds a fault (see apps/upstream-sim/README.md) */
  fault: (fault: Record<string, unknown>) => Promise<unknown>;
  stop: () => Promise<unknown>;
}

/**
 * The upstream simulator (its built dist) as a real process on a free loopback port, with its
 * rate limits off unless `env` turns them on, and its control API.
 */
export async function startUpstreamSim(env: Record<string, string> = {}, port?: number): Promise<RunningSim> {
  const p = port ?? (await freePort());
  const url = `http://127.0.0.1:${p}`;
  const controlToken = env.SIM_CONTROL_TOKEN ?? randomBytes(18).toString('base64url');
  const proc = await startProcess({
    name: 'upstream-sim',
    entry: PROCESS_ENTRIES.sim,
    env: {
      SIM_PORT: String(p),
      SIM_HOST: '127.0.0.1',
      SIM_PUBLIC_URL: url,
      SIM_DASHSCOPE_SUBMIT_RPS: '0',
      SIM_DASHSCOPE_MAX_RUNNING: '0',
      SIM_DASHSCOPE_QUERY_QPS: '0',
      LOG_LEVEL: 'warn',
      SIM_CONTROL_TOKEN: controlToken,
      ...env,
    },
    readyUrl: `${url}/healthz`,
  });
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/_control${path}`, {
      method,
      headers: {
        authorization: `Bearer ${controlToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`sim control ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    url,
    controlToken,
    control,
    stats: () => control('GET', '/stats'),
    fault: (fault) => control('POST', '/faults', fault),
    stop: () => proc.stop(),
  };
}

/**
 * Creates a video task directly on the simulator, as a worker's submit would, and returns its
 * upstream id (tests use it to stage a task that is already running upstream).
 */
export async function submitSimVideo(simUrl: string): Promise<string> {
  const res = await fetch(`${simUrl}/api/v1/services/aigc/video-generation/video-synthesis`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      'X-DashScope-Async': 'enable',
    },
    body: JSON.stringify({
      model: 'wan2.6-i2v-flash',
      input: { prompt: 'a cat', img_url: 'https://example.com/cat.png' },
      parameters: { resolution: '720P', duration: 5 },
    }),
  });
  if (!res.ok) throw new Error(`simulator refused the submit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { output: { task_id: string } }).output.task_id;
}
