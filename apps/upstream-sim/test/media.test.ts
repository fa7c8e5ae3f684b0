import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { encodePng, PngCache } from '../src/png';
import { CONTROL_TOKEN, call, type RunningSim, startSim } from './helpers';

const SAMPLE = readFileSync(path.join(__dirname, '..', 'assets', 'sample.mp4'));

/** Checks the PNG structure (signature, chunk CRCs, IHDR, inflated size) and returns its size. */
function decodePng(buf: Buffer): { width: number; height: number } {
  expect(buf.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let offset = 8;
  const types: string[] = [];
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('latin1', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9]]).toEqual([8, 2]);
    }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
  expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (1 + 3 * width));
  return { width, height };
}

describe('media', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  it.each([
    [1, 1],
    [1024, 1024],
    [1280, 720],
    [16384, 1024],
  ])('serves a valid %ix%i PNG', async (width, height) => {
    const res = await fetch(`${sim.base}/media/images/abc-${width}x${height}.png`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(decodePng(Buffer.from(await res.arrayBuffer()))).toEqual({ width, height });
  });

  it('renders 4096x4096 in under 1 MB, and renders each size once (later images of that size come from the cache)', async () => {
    const first = await fetch(`${sim.base}/media/images/big-4096x4096.png`);
    const body = Buffer.from(await first.arrayBuffer());
    expect(body.length).toBeLessThan(1_000_000);
    expect(decodePng(body)).toEqual({ width: 4096, height: 4096 });
    const other = await fetch(`${sim.base}/media/images/other-4096x4096.png`);
    expect(Buffer.from(await other.arrayBuffer()).equals(body)).toBe(true);
    const cache = new PngCache(2);
    const png = cache.get(4096, 4096);
    expect(cache.get(4096, 4096)).toBe(png); // the same buffer: not rendered again
    cache.get(1, 1);
    cache.get(2, 2); // the least recently used size goes
    expect(cache.get(4096, 4096)).not.toBe(png);
  });

  it('answers 404 for image names without a size or over 16,777,216 pixels', async () => {
    for (const name of ['abc.png', 'abc-0x10.png', 'abc-4097x4096.png', 'abc-10x10.jpg', '..-10x10.png']) {
      expect((await fetch(`${sim.base}/media/images/${name}`)).status).toBe(404);
    }
  });

  it('serves the sample mp4 for a video, whole and by Range', async () => {
    const whole = await fetch(`${sim.base}/media/videos/3f1c-task.mp4`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(SAMPLE)).toBe(true);

    const part = await fetch(`${sim.base}/media/videos/3f1c-task.mp4`, { headers: { range: 'bytes=4-11' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${SAMPLE.length}`);
    const bytes = Buffer.from(await part.arrayBuffer());
    expect(bytes.equals(SAMPLE.subarray(4, 12))).toBe(true);
    expect(bytes.toString('latin1', 0, 4)).toBe('ftyp');

    const tail = await fetch(`${sim.base}/media/videos/x.mp4`, {
      headers: { range: `bytes=${SAMPLE.length + 10}-` },
    });
    expect(tail.status).toBe(416);
  });

  it('answers 404 for a video name that is not <id>.mp4', async () => {
    expect((await fetch(`${sim.base}/media/videos/abc.mov`)).status).toBe(404);
  });

  it('answers unknown routes with 404 JSON in the envelope of the path', async () => {
    const dashscope = await call(sim.base, 'GET', '/api/v1/nothing');
    expect(dashscope.status).toBe(404);
    expect(dashscope.body).toMatchObject({ code: 'NotFound', request_id: expect.any(String) });
    const ark = await call(sim.base, 'POST', '/api/v3/chat/completions', { body: {} });
    expect(ark.status).toBe(404);
    expect(ark.body.error).toMatchObject({ code: 'NotFound', type: 'NotFound' });
    const other = await call(sim.base, 'GET', '/nothing');
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: { code: 'not_found', message: 'Unknown route: GET /nothing' } });
  });

  it('makes video links expire, grow (a valid MP4 padded by a free box) and slow down on request', async () => {
    const url = `${sim.base}/media/videos/task.mp4`;
    await call(sim.base, 'POST', '/_control/video-media', {
      body: { linksExpired: true },
      key: CONTROL_TOKEN,
    });
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(expired.headers.get('content-type')).toContain('application/xml');
    expect(await expired.text()).toContain('Request has expired');

    const set = await call(sim.base, 'POST', '/_control/video-media', {
      body: { linksExpired: false, sizeBytes: 1_000_000, bytesPerSecond: 2_000_000 },
      key: CONTROL_TOKEN,
    });
    expect(set.body).toEqual({ linksExpired: false, sizeBytes: 1_000_000, bytesPerSecond: 2_000_000 });
    const started = performance.now();
    const big = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(performance.now() - started).toBeGreaterThan(300);
    expect(big.length).toBe(1_000_000);
    expect(big.subarray(0, SAMPLE.length).equals(SAMPLE)).toBe(true);
    expect(big.readUInt32BE(SAMPLE.length)).toBe(1_000_000 - SAMPLE.length);
    expect(big.toString('latin1', SAMPLE.length + 4, SAMPLE.length + 8)).toBe('free');

    const bad = await call(sim.base, 'POST', '/_control/video-media', {
      body: { sizeBytes: -1 },
      key: CONTROL_TOKEN,
    });
    expect(bad.status).toBe(400);
    await call(sim.base, 'POST', '/_control/reset', { key: CONTROL_TOKEN });
    expect((await call(sim.base, 'GET', '/_control/video-media', { key: CONTROL_TOKEN })).body).toEqual({
      linksExpired: false,
      sizeBytes: null,
      bytesPerSecond: null,
    });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(SAMPLE)).toBe(true);
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${sim.base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});

describe('encodePng', () => {
  it('produces a gradient whose every row equals the first', () => {
    const png = encodePng(64, 3);
    expect(decodePng(png)).toEqual({ width: 64, height: 3 });
  });
});
