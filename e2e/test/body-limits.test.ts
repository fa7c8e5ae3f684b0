import {
  type BodyPiece,
  processMemory,
  type StreamedFormResult,
  sendStreamedBody,
  sendStreamedForm,
} from '@mediagate/shared/testing';
import { CONTAINER_HEAP, type Stack, startStack } from './stack';

const MB = 1024 * 1024;
/**
 * The API process's resident memory may not pass this, whatever bodies within the limits paying or
 * non-paying callers send at once (default BODY_IN_FLIGHT_BYTES; see docs/security.md).
 */
const RSS_CEILING_BYTES = 512 * MB;
/** Bodies over the limits are refused before they cost anything: a lower ceiling (the file's first test). */
const OVERSIZED_RSS_CEILING_BYTES = 300 * MB;

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ videoWorkers: 0, reconciler: false, apiNodeArgs: [...CONTAINER_HEAP] });
  key = stack.newKey(10);
}, 90_000);
afterAll(() => stack?.stop());

const mb = (n: number) => Math.round(n / MB);
const errorCode = (a: StreamedFormResult) => (a.status ? JSON.parse(a.body).error.code : a.error);

/**
 * An image request of about `totalBytes` as JSON: four base64 data URLs (each within a model's
 * 10 MB image limit once decoded), the whole under the 50 MB image body limit.
 */
function imageJson(totalBytes: number): BodyPiece[] {
  const each = Math.floor((totalBytes - 200) / 4);
  const url = (i: number): BodyPiece[] => [`${i ? ',' : ''}"data:image/png;base64,`, { bytes: each }, '"'];
  return ['{"model":"seedream-4.5","prompt":"four cats","image":[', ...[0, 1, 2, 3].flatMap(url), ']}'];
}

const imageFiles = (files: number, bytes: number) =>
  Array.from({ length: files }, (_, i) => ({ name: 'image[]', filename: `${i}.png`, bytes }));

/** Runs `send` `times` at once and reports the API's memory around it. */
async function concurrently(
  label: string,
  times: number,
  send: (i: number) => Promise<StreamedFormResult>,
): Promise<StreamedFormResult[]> {
  const pid = stack.apiProcess.child.pid!;
  const before = processMemory(pid);
  const answers = await Promise.all(Array.from({ length: times }, (_, i) => send(i)));
  const after = processMemory(pid);
  process.stderr.write(
    `[body-limits] ${label}: API RSS before ${mb(before.rssBytes)} MB, after ${mb(after.rssBytes)} MB, peak ${mb(after.peakRssBytes)} MB\n`,
  );
  return answers;
}

async function expectUnderCeilingAndAlive(ceiling = RSS_CEILING_BYTES): Promise<void> {
  expect(processMemory(stack.apiProcess.child.pid!).peakRssBytes).toBeLessThan(ceiling);
  expect(stack.apiProcess.child.exitCode).toBeNull();
  expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
}

describe('oversized multipart bodies against the real API process', () => {
  it(`answers 413 to 8 concurrent forms of 8 x 45 MB fields, its RSS staying under ${OVERSIZED_RSS_CEILING_BYTES / MB} MB`, async () => {
    const paths = ['/v1/images/edits', '/v1/videos'];
    const answers = await concurrently('8 forms of 8 x 45 MB fields', 8, (i) =>
      sendStreamedForm(stack.apiUrl + paths[i % 2]!, {
        headers: { authorization: `Bearer ${key}` },
        parts: Array.from({ length: 8 }, (_, j) => ({ name: `pad${j}`, bytes: 45 * MB })),
        timeoutMs: 60_000,
      }),
    );
    for (const a of answers) {
      // 413, or 429 when the bytes already received for the account's bodies in flight reach
      // their cap first (busboy reads a text field to its end before saying it was too long)
      expect([
        { status: 413, code: 'request_too_large' },
        { status: 429, code: 'rate_limit_exceeded' },
      ]).toContainEqual({ status: a.status, code: errorCode(a) });
      // refused long before the 360 MB each form would be
      expect(a.sentBytes).toBeLessThan(64 * MB);
    }
    await expectUnderCeilingAndAlive(OVERSIZED_RSS_CEILING_BYTES);
  });
});

describe('bodies within the limits from a caller who cannot pay', () => {
  let broke: string;
  beforeAll(() => {
    broke = stack.newKey(0);
  });

  it('answers 402 to 8 concurrent 47 MB JSON image requests before reading them', async () => {
    const answers = await concurrently('8 x 47 MB JSON at balance 0', 8, () =>
      sendStreamedBody(`${stack.apiUrl}/v1/images/generations`, {
        contentType: 'application/json',
        headers: { authorization: `Bearer ${broke}` },
        declareLength: true,
        pieces: imageJson(47 * MB),
        timeoutMs: 90_000,
      }),
    );
    for (const a of answers) {
      expect({ status: a.status, code: errorCode(a) }).toEqual({ status: 402, code: 'insufficient_quota' });
      // answered before the body: at most what the sockets hold was sent
      expect(a.sentBytes).toBeLessThan(16 * MB);
    }
    await expectUnderCeilingAndAlive();
  });

  it('answers 402 to 8 concurrent forms of 3 x 9.9 MB image files before reading them', async () => {
    const answers = await concurrently('8 x 3 x 9.9 MB files at balance 0', 8, (i) =>
      sendStreamedForm(`${stack.apiUrl}/v1/images/edits`, {
        headers: { authorization: `Bearer ${broke}` },
        declareLength: i % 2 === 0,
        parts: [{ name: 'prompt', bytes: 20 }, ...imageFiles(3, Math.round(9.9 * MB))],
        timeoutMs: 90_000,
      }),
    );
    for (const a of answers) {
      expect({ status: a.status, code: errorCode(a) }).toEqual({ status: 402, code: 'insufficient_quota' });
      expect(a.sentBytes).toBeLessThan(16 * MB);
    }
    await expectUnderCeilingAndAlive();
  });
});

describe('bodies within the limits from a paying caller', () => {
  it(`keeps the API under ${RSS_CEILING_BYTES / MB} MB with 8 concurrent 47 MB JSON image requests`, async () => {
    const payer = stack.newKey(1_000);
    const answers = await concurrently('8 x 47 MB JSON, paying', 8, () =>
      sendStreamedBody(`${stack.apiUrl}/v1/images/generations`, {
        contentType: 'application/json',
        headers: { authorization: `Bearer ${payer}` },
        declareLength: true,
        pieces: imageJson(47 * MB),
        timeoutMs: 120_000,
      }),
    );
    for (const a of answers) {
      // the filler is no image (400), or the account's share of bodies in flight is taken (429)
      expect([400, 429]).toContain(a.status);
      if (a.status === 429) {
        expect(errorCode(a)).toBe('rate_limit_exceeded');
        expect(a.headers['retry-after']).toBeDefined();
      }
    }
    await expectUnderCeilingAndAlive();
  });

  it(`keeps the API under ${RSS_CEILING_BYTES / MB} MB with 8 paying accounts sending 47 MB at once`, async () => {
    const payers = Array.from({ length: 8 }, () => stack.newKey(1_000));
    const answers = await concurrently('8 accounts x 47 MB JSON, paying', 8, (i) =>
      sendStreamedBody(`${stack.apiUrl}/v1/images/generations`, {
        contentType: 'application/json',
        headers: { authorization: `Bearer ${payers[i]}` },
        pieces: imageJson(47 * MB),
        timeoutMs: 120_000,
      }),
    );
    for (const a of answers) expect([400, 429]).toContain(a.status);
    await expectUnderCeilingAndAlive();
  });

  it('refuses a fourth image file with 400 as soon as it starts', async () => {
    const payer = stack.newKey(1_000);
    const a = await sendStreamedForm(`${stack.apiUrl}/v1/images/edits`, {
      headers: { authorization: `Bearer ${payer}` },
      parts: [
        { name: 'model', value: 'qwen-image-edit' },
        { name: 'prompt', value: 'make it blue' },
        ...imageFiles(8, 5 * MB),
      ],
      timeoutMs: 60_000,
    });
    expect({ status: a.status, code: errorCode(a) }).toEqual({ status: 400, code: 'invalid_request' });
    expect(JSON.parse(a.body).error.message).toMatch(/takes 1 to 3 images/);
    // three files and the fourth's first bytes (plus what the sockets hold), not the 40 MB form
    expect(a.sentBytes).toBeLessThan(27 * MB);
    await expectUnderCeilingAndAlive();
  });
});
