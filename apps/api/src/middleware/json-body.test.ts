import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@mediagate/shared/log';
import express from 'express';
import { parseBody } from './body';
import { errorHandler } from './errors';
import { isPlainJson } from './json-body';

// parseBody reads plain JSON bodies itself (json-body.ts); every answer must be the one the
// API gave when express.json read them. Both run here side by side on the same requests.

const MB = 1024 * 1024;
let server: http.Server;
let base: string;
const echo: express.RequestHandler = (req, res) => {
  res.json({ body: req.body === undefined ? '(undefined)' : req.body });
};
beforeAll(async () => {
  const app = express();
  app.post('/ours', ...parseBody({ limitBytes: 4 * MB }), echo);
  app.post('/express', express.json({ limit: 4 * MB, strict: false }), echo);
  app.use(errorHandler(createLogger({ service: 'test', level: 'silent' })));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

interface Answer {
  status: number;
  body: unknown;
}

/** Sends `pieces` as the body, chunked unless `length` says what Content-Length to declare. */
function send(
  path: string,
  pieces: Buffer[],
  headers: Record<string, string>,
  length?: number,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method: 'POST',
      headers: length === undefined ? headers : { ...headers, 'content-length': String(length) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    const write = (i: number) => {
      if (i === pieces.length) return req.end();
      // each piece its own chunk on the wire
      req.write(pieces[i]!, () => setImmediate(write, i + 1));
    };
    write(0);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const bytes = (...parts: Array<string | number[]>) =>
  parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)));

const cases: Array<{ name: string; pieces: Buffer[]; headers?: Record<string, string>; declare?: boolean }> =
  [
    { name: 'an object', pieces: bytes('{"model":"m","n":2,"image":["a","b"]}') },
    { name: 'a string (not strict)', pieces: bytes('"just text"') },
    { name: 'a number', pieces: bytes('42') },
    { name: 'a UTF-8 byte order mark', pieces: bytes([0xef, 0xbb, 0xbf], '{"prompt":"café"}') },
    { name: 'a character split across chunks', pieces: bytes('{"p":"', [0xe7, 0x8c], [0xab], '"}') },
    { name: 'bytes that are not UTF-8', pieces: bytes('{"p":"', [0xff, 0xc3, 0x28], '"}') },
    { name: 'an empty body', pieces: [] },
    { name: 'only a byte order mark', pieces: bytes([0xef, 0xbb, 0xbf]) },
    { name: 'only whitespace', pieces: bytes('  \n') },
    { name: 'broken JSON', pieces: bytes('{"model":') },
    {
      name: 'a charset that is not UTF-8',
      pieces: bytes('{}'),
      headers: { 'content-type': 'application/json; charset=latin1' },
    },
    {
      name: 'an explicit UTF-8 charset',
      pieces: bytes('{"p":"ü"}'),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    },
    {
      name: '2 MB in uneven chunks',
      pieces: [
        Buffer.from('{"image":"'),
        ...Array.from({ length: 40 }, (_, i) => Buffer.alloc(1000 + i * 1033, 'QUJD')),
        Buffer.from('"}'),
      ],
    },
  ];

describe('plain JSON bodies read as express.json reads them', () => {
  for (const c of cases) {
    for (const declare of [true, false]) {
      it(`${c.name}, ${declare ? 'with its length' : 'chunked'}`, async () => {
        const headers = c.headers ?? JSON_TYPE;
        const length = declare ? c.pieces.reduce((n, p) => n + p.length, 0) : undefined;
        const ours = await send('/ours', c.pieces, headers, length);
        const theirs = await send('/express', c.pieces, headers, length);
        expect(ours).toEqual(theirs);
      });
    }
  }

  it('takes only uncompressed UTF-8 application/json with a body (the rest goes to express.json)', () => {
    const req = (headers: Record<string, string>) =>
      ({ headers, readable: true }) as unknown as express.Request;
    expect(isPlainJson(req({ ...JSON_TYPE, 'content-length': '2' }))).toBe(true);
    expect(isPlainJson(req({ ...JSON_TYPE, 'transfer-encoding': 'chunked' }))).toBe(true);
    expect(
      isPlainJson(req({ 'content-type': 'application/json;charset="utf-8"', 'content-length': '2' })),
    ).toBe(true);
    expect(isPlainJson(req(JSON_TYPE))).toBe(false);
    expect(isPlainJson(req({ ...JSON_TYPE, 'content-length': '2', 'content-encoding': 'gzip' }))).toBe(false);
    expect(
      isPlainJson(req({ 'content-type': 'application/json; charset=utf-16le', 'content-length': '2' })),
    ).toBe(false);
    expect(isPlainJson(req({ 'content-type': 'application/vnd.api+json', 'content-length': '2' }))).toBe(
      false,
    );
  });
});
