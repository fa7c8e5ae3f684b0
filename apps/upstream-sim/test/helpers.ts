import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSimApp } from '../src/app';
import { simEnvSchema } from '../src/config';
import type { SimState } from '../src/state';

export const KEY = 'sk-sim-test';
/** the control API's token (SIM_CONTROL_TOKEN) of every simulator startSim starts */
export const CONTROL_TOKEN = 'upstream-sim-control-token-for-tests';
export const VIDEO_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';
export const EDIT_PATH = '/api/v1/services/aigc/multimodal-generation/generation';
export const ARK_PATH = '/api/v3/images/generations';

/** A simulator listening on a free loopback port, with its state for inspection. */
export interface RunningSim {
  base: string;
  state: SimState;
  close: () => Promise<void>;
}

/** Starts the real app over HTTP. Rate limits are off unless `env` turns them on. */
export async function startSim(env: Record<string, string> = {}): Promise<RunningSim> {
  const config = simEnvSchema.parse({
    SIM_DASHSCOPE_SUBMIT_RPS: '0',
    SIM_DASHSCOPE_MAX_RUNNING: '0',
    SIM_DASHSCOPE_QUERY_QPS: '0',
    SIM_CONTROL_TOKEN: CONTROL_TOKEN,
    ...env,
  });
  const { app, state } = buildSimApp(config);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  body: any;
}

/** One HTTP call; JSON bodies are sent as JSON, strings as they are. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; key?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? KEY : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** A valid wan2.6 create body, with `patch` merged into `input` and `parameters`. */
export function videoBody(
  patch: { model?: string; input?: Record<string, unknown>; parameters?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    model: patch.model ?? 'wan2.6-i2v-flash',
    input: { prompt: 'a cat on a skateboard', img_url: 'https://example.com/cat.png', ...patch.input },
    parameters: { resolution: '720P', duration: 5, ...patch.parameters },
  };
}

/** Submits a video task and returns the answer. */
export function submitVideo(
  base: string,
  body: unknown = videoBody(),
  key: string | null = KEY,
): Promise<Reply> {
  return call(base, 'POST', VIDEO_PATH, { body, key, headers: { 'X-DashScope-Async': 'enable' } });
}

/** Queries a video task. */
export function queryVideo(base: string, taskId: string): Promise<Reply> {
  return call(base, 'GET', `/api/v1/tasks/${taskId}`);
}

/** POSTs to the control API. */
export function control(base: string, path: string, body: unknown = {}): Promise<Reply> {
  return call(base, 'POST', `/_control${path}`, { body, key: CONTROL_TOKEN });
}

/** A PNG data URL of the given size (header only: enough for the sim's size probe). */
export function pngDataUrl(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return `data:image/png;base64,${b.toString('base64')}`;
}
