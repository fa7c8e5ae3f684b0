import {
  type BodyPiece,
  processMemory,
  type StreamedFormResult,
  sendStreamedBody,
  sendStreamedForm,
} from '@mediagate/shared/testing';
import fc from 'fast-check';
import { CONTAINER_HEAP, type Stack, startStack } from '../stack';
import { FUZZ_ENV, FUZZ_SEED, problemWith } from './kit';

// The memory property under load: batches of concurrent bodies within the limits (JSON image
// requests carrying data URLs, forms of image files, video creates), sent at once by an account
// at 0, by one paying account or by several, with or without a declared length. Whatever the
// batch: no 5xx, every error in the OpenAI shape, and the API's resident memory stays under the
// ceiling docs/security.md states for the default BODY_IN_FLIGHT_BYTES.

const MB = 1024 * 1024;
/** The ceiling of docs/security.md (512 MB with the default bodies in flight). */
const RSS_CEILING_BYTES = 512 * MB;
const RUNS = Math.max(1, Math.round(16 * Number(process.env.FUZZ_RUNS_SCALE ?? 1)));

let stack: Stack;
let keys: { broke: string; payer: string; payers: string[] };
beforeAll(async () => {
  stack = await startStack({
    videoWorkers: 0,
    reconciler: false,
    env: FUZZ_ENV,
    apiNodeArgs: [...CONTAINER_HEAP],
  });
  keys = {
    broke: stack.newKey(0),
    payer: stack.newKey(1_000),
    payers: Array.from({ length: 8 }, () => stack.newKey(1_000)),
  };
}, 120_000);
afterAll(() => stack?.stop());

type Shape = 'image-json' | 'image-form' | 'video-json';

interface Batch {
  shape: Shape;
  caller: 'broke' | 'payer' | 'payers';
  /** the size of each body, MB (image bodies of 16 to 47 of the 50 MB limit; video creates under 1 MB) */
  sizes: number[];
  declareLength: boolean;
}

const batches: fc.Arbitrary<Batch> = fc.record({
  shape: fc.constantFrom<Shape>('image-json', 'image-form', 'video-json'),
  caller: fc.constantFrom<Batch['caller']>('broke', 'payer', 'payers'),
  sizes: fc.array(fc.integer({ min: 16, max: 47 }), { minLength: 2, maxLength: 8 }),
  declareLength: fc.boolean(),
});

function sendOne(batch: Batch, i: number, mb: number): Promise<StreamedFormResult> {
  const key =
    batch.caller === 'broke' ? keys.broke : batch.caller === 'payer' ? keys.payer : keys.payers[i % 8]!;
  const headers = { authorization: `Bearer ${key}` };
  const common = { headers, declareLength: batch.declareLength, timeoutMs: 120_000 };
  if (batch.shape === 'image-form') {
    // up to three files within a model's 10 MB each
    const files = Math.min(3, Math.ceil(mb / 9.9));
    const each = Math.floor((mb * MB) / files);
    return sendStreamedForm(`${stack.apiUrl}/v1/images/edits`, {
      ...common,
      parts: [
        { name: 'prompt', value: 'make it blue' },
        ...Array.from({ length: files }, (_, j) => ({ name: 'image[]', filename: `${j}.png`, bytes: each })),
      ],
    });
  }
  if (batch.shape === 'video-json') {
    const pieces: BodyPiece[] = [
      '{"model":"wan2.6-i2v-flash-5s-720p","prompt":"a boat","metadata":{"input":{"img_url":"https://example.com/a.png"},"pad":"',
      { bytes: Math.min(mb * 20_000, 1_000_000) },
      '"}}',
    ];
    return sendStreamedBody(`${stack.apiUrl}/v1/videos`, {
      ...common,
      contentType: 'application/json',
      pieces,
    });
  }
  const each = Math.floor((mb * MB - 200) / 4);
  const pieces: BodyPiece[] = [
    '{"model":"seedream-4.5","prompt":"cats","image":[',
    ...[0, 1, 2, 3].flatMap((j): BodyPiece[] => [
      `${j ? ',' : ''}"data:image/png;base64,`,
      { bytes: each },
      '"',
    ]),
    ']}',
  ];
  return sendStreamedBody(`${stack.apiUrl}/v1/images/generations`, {
    ...common,
    contentType: 'application/json',
    pieces,
  });
}

describe('fuzzing the API with concurrent bodies within the limits', () => {
  it(`keeps every answer well-formed and the API under ${RSS_CEILING_BYTES / MB} MB`, async () => {
    const pid = stack.apiProcess.child.pid!;
    await fc.assert(
      fc.asyncProperty(batches, async (batch) => {
        const answers = await Promise.all(batch.sizes.map((mb, i) => sendOne(batch, i, mb)));
        for (const a of answers) {
          if (a.status === null) throw new Error(`no answer (${a.error ?? 'closed'})`);
          const problem = problemWith(
            { method: 'POST', path: '', headers: {} },
            { status: a.status, headers: a.headers, text: a.body },
          );
          if (problem) throw new Error(`${problem}\n  answer ${a.status}: ${a.body.slice(0, 600)}`);
          // a caller at 0 is refused before its body: never read in full
          if (batch.caller === 'broke' && batch.shape !== 'video-json') expect(a.status).toBe(402);
        }
        const { peakRssBytes } = processMemory(pid);
        if (peakRssBytes > RSS_CEILING_BYTES) {
          throw new Error(`the API's memory reached ${Math.round(peakRssBytes / MB)} MB`);
        }
      }),
      { seed: FUZZ_SEED, numRuns: RUNS, endOnFailure: true },
    );
    process.stderr.write(
      `[fuzz memory] API peak RSS ${Math.round(processMemory(pid).peakRssBytes / MB)} MB after ${RUNS} batches\n`,
    );
    expect(processMemory(pid).peakRssBytes).toBeLessThan(RSS_CEILING_BYTES);
    expect(stack.apiProcess.child.exitCode).toBeNull();
    expect(stack.apiProcess.child.signalCode).toBeNull();
    expect((await fetch(`${stack.apiUrl}/healthz`)).status).toBe(200);
    const unhandled = stack.apiProcess
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"unhandled error"'));
    expect(unhandled).toEqual([]);
  }, 600_000);
});
