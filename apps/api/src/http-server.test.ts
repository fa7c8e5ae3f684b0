import net, { type AddressInfo } from 'node:net';
import { loadConfig } from '@mediagate/shared/config';
import { startTestApi, type TestApi } from '../test/harness';
import { buildApp } from './app';
import { apiEnvSchema } from './config';
import { createApiServer } from './http-server';

let api: TestApi;
let port: number;
let close: () => Promise<void>;
beforeAll(async () => {
  api = await startTestApi();
  const server = createApiServer(buildApp(api.deps), {
    HTTP_HEADERS_TIMEOUT_MS: 1_000,
    HTTP_REQUEST_TIMEOUT_MS: 3_000,
    HTTP_KEEPALIVE_TIMEOUT_MS: 1_000,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  close = () =>
    new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
});
afterAll(async () => {
  await close?.();
  await api?.close();
});

/**
 * Opens a connection, sends `head` at once, then one byte of `trickle` every `everyMs` until the
 * server closes the connection; resolves with what the server sent and when it closed.
 */
function trickle(
  head: string,
  rest: string,
  everyMs: number,
): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let i = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      answer += d;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    socket.write(head);
    timer = setInterval(() => {
      if (i < rest.length && !socket.destroyed) socket.write(rest[i++]!);
    }, everyMs);
  });
}

describe('slow clients are cut off', () => {
  it('closes a connection whose headers trickle in, with 408, within the headers timeout', async () => {
    const { answer, closedAfterMs } = await trickle(
      'POST /console/api/login HTTP/1.1\r\nHost: x\r\n',
      'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n',
      200,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('closes a connection whose body comes one byte every 5 s, with 408, within the request timeout', async () => {
    const body = JSON.stringify({ email: 'slow@example.test', password: 'password-123' });
    const { answer, closedAfterMs } = await trickle(
      `POST /console/api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
      5_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(2_500);
    expect(closedAfterMs).toBeLessThan(5_500);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { answer, closedAfterMs } = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 1_000);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('has sane bounds by default', () => {
    const config = loadConfig(apiEnvSchema, {});
    expect(config.HTTP_HEADERS_TIMEOUT_MS).toBe(15_000);
    expect(config.HTTP_REQUEST_TIMEOUT_MS).toBe(120_000);
    expect(config.HTTP_KEEPALIVE_TIMEOUT_MS).toBe(65_000);
  });
});
