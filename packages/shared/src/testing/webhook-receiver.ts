import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  n: number;
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers to its n-th request (1-based); `hang` never answers. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * A real HTTP webhook receiver on 127.0.0.1 that records every request and answers as `reply`
 * says. `verify(secret)` checks every recorded delivery with the standardwebhooks package.
 */
export async function startReceiver(
  reply: (n: number, r: Received) => Reply = () => ({ status: 200 }),
  port = 0,
) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        n: received.length + 1,
        at: Date.now(),
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      const answer = reply(r.n, r);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => {
        inFlight -= 1;
        hanging.delete(res);
      });
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    received,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    /** parses and verifies every request with the account's secret(s); throws on any failure */
    verifyAll: (secret: string) => received.map((r) => new Webhook(secret).verify(r.body, headersOf(r))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export function headersOf(r: Received): Record<string, string> {
  return {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
}
