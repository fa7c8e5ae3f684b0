import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createLogger } from '@mediagate/shared/log';
import express from 'express';
import { admittedBodies, bodyGrowth, parseBody } from './body';
import { errorHandler } from './errors';

// What the JSON reader holds for a body still arriving: only what has arrived, unless a budget
// (admitBody) already counts the declared length. A route without admitBody (the console's login)
// must not hold a body's declared length for a caller who sends only its headers.

const MB = 1024 * 1024;
const LIMIT = 1 * MB;
const SOCKETS = 40;
let server: http.Server;
let port: number;
const arrived = { count: 0, closed: 0 };
/** the most a budget counting chunked bodies was asked to hold for one (as admitBody's lease grows) */
let charged = 0;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  const app = express();
  const countArrival: express.RequestHandler = (req, _res, next) => {
    arrived.count += 1;
    req.once('close', () => (arrived.closed += 1));
    next();
  };
  // what admitBody does once the declared length is in the budget
  const lengthInBudget: express.RequestHandler = (req, _res, next) => {
    admittedBodies.add(req);
    next();
  };
  const countedAsArriving: express.RequestHandler = (req, _res, next) => {
    bodyGrowth.set(req, (bytes) => {
      charged = Math.max(charged, bytes);
      return undefined;
    });
    next();
  };
  const echo: express.RequestHandler = (req, res) => res.json({ body: req.body });
  app.post('/uncounted', countArrival, ...parseBody({ limitBytes: LIMIT }), echo);
  app.post('/counted', countArrival, lengthInBudget, ...parseBody({ limitBytes: LIMIT }), echo);
  app.post('/chunked', countArrival, countedAsArriving, ...parseBody({ limitBytes: 4 * LIMIT }), echo);
  app.use(errorHandler(createLogger({ service: 'test', level: 'silent' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  // whatever the server held for them is let go before the next test measures
  await waitFor(() => arrived.closed === arrived.count, 'the server to see the connections close');
});
afterAll(() => new Promise((r) => server.close(r)));

async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens `n` connections that each send the headers of a LIMIT-byte JSON body and its first byte. */
async function headersOnly(path: string, n: number): Promise<void> {
  const before = arrived.count;
  for (let i = 0; i < n; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    sockets.push(socket);
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT}\r\n\r\n{`,
    );
  }
  await waitFor(() => arrived.count - before === n, 'the requests to reach the route');
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
/** ArrayBuffer bytes held, the unreachable ones (the socket's chunks, once copied) collected */
const external = () => {
  gc();
  return process.memoryUsage().arrayBuffers;
};

describe('what the JSON reader holds for a body still arriving', () => {
  it('holds only the bytes arrived when no budget counts the declared length', async () => {
    const before = external();
    await headersOnly('/uncounted', SOCKETS);
    const grown = external() - before;
    // the declared lengths would be 40 MB; the bytes arrived, 40
    expect(grown).toBeLessThan((SOCKETS * LIMIT) / 8);
  });

  it('holds the declared length from the start once a budget counts it', async () => {
    const before = external();
    await headersOnly('/counted', SOCKETS);
    const grown = external() - before;
    expect(grown).toBeGreaterThan((SOCKETS * LIMIT) / 2);
  });

  it('has a budget counting a chunked body charged for what is held, not only what arrived', async () => {
    charged = 0;
    const before = external();
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    sockets.push(socket);
    socket.write(
      'POST /chunked HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const sent = 2 * LIMIT + 1;
    const piece = Buffer.alloc(64 * 1024, ' ');
    for (let at = 0; at < sent; at += piece.length) {
      const size = Math.min(piece.length, sent - at);
      socket.write(`${size.toString(16)}\r\n`);
      socket.write(piece.subarray(0, size));
      socket.write('\r\n');
    }
    // the body is held open, its end not sent
    await waitFor(() => charged >= sent, 'the body to arrive');
    const held = external() - before;
    // a buffer grown by doubling holds up to twice what arrived: 4 MB here
    expect(held).toBeGreaterThan(sent);
    expect(charged).toBeGreaterThanOrEqual(held - LIMIT / 4);
    expect(charged).toBeLessThanOrEqual(2 * sent);
  });

  it('reads a body sent in pieces to either route', async () => {
    for (const path of ['/uncounted', '/counted']) {
      const body = JSON.stringify({ image: 'QUJD'.repeat(50_000), n: 2 });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request({
          port,
          host: '127.0.0.1',
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 70_001));
        setImmediate(() => req.end(body.slice(70_001)));
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ body: JSON.parse(body) });
    }
  });
});
