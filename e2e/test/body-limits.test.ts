import { processMemory, sendStreamedForm } from '@mediagate/shared/testing';
import { type Stack, startStack } from './stack';

const MB = 1024 * 1024;
/** The API process's resident memory may not pass this, whatever it is sent. */
const RSS_CEILING_BYTES = 300 * MB;

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ videoWorkers: 0, reconciler: false });
  key = stack.newKey(10);
}, 90_000);
afterAll(() => stack?.stop());

describe('oversized multipart bodies against the real API process', () => {
  it(`answers 413 to 8 concurrent forms of 8 x 45 MB fields, its RSS staying under ${RSS_CEILING_BYTES / MB} MB`, async () => {
    const pid = stack.apiProcess.child.pid!;
    const before = processMemory(pid);
    const paths = ['/v1/images/edits', '/v1/videos'];
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        sendStreamedForm(stack.apiUrl + paths[i % 2]!, {
          headers: { authorization: `Bearer ${key}` },
          parts: Array.from({ length: 8 }, (_, j) => ({ name: `pad${j}`, bytes: 45 * MB })),
          timeoutMs: 60_000,
        }),
      ),
    );
    const after = processMemory(pid);
    for (const a of answers) {
      expect({ status: a.status, code: a.status ? JSON.parse(a.body).error.code : a.error }).toEqual({
        status: 413,
        code: 'request_too_large',
      });
      // refused long before the 360 MB each form would be
      expect(a.sentBytes).toBeLessThan(64 * MB);
    }
    process.stderr.write(
      `[body-limits] API RSS before ${Math.round(before.rssBytes / MB)} MB, peak ${Math.round(after.peakRssBytes / MB)} MB\n`,
    );
    expect(after.peakRssBytes).toBeLessThan(RSS_CEILING_BYTES);
    expect(stack.apiProcess.child.exitCode).toBeNull();
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
  });
});
