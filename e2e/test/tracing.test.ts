import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

/**
 * One video task is one trace across the real processes: the API, a video worker and a callbacks
 * dispatcher export their spans over OTLP/HTTP (JSON) to a collector run by this test, which
 * decodes them and checks the tree: the HTTP create, the job through BullMQ, every upstream call,
 * the terminal move, the callback job and the delivery POST. Log lines carry the trace id.
 */
jest.setTimeout(120_000);

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  attributes: Record<string, unknown>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: OtlpValue };
const otlpValue = (v: OtlpValue) =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, otlpValue(a.value)]));

/** An OTLP/HTTP collector for traces in the JSON encoding: POST /v1/traces. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; close: () => Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

let collector: Awaited<ReturnType<typeof startCollector>>;
let stack: Stack;
let rx: Receiver;

beforeAll(async () => {
  collector = await startCollector();
  rx = await startReceiver();
  stack = await startStack({
    videoWorkers: 1,
    callbackWorkers: 1,
    reconciler: false,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
    },
  });
});
afterAll(async () => {
  await stack?.stop();
  await rx?.close();
  await collector?.close();
});

it('one task is one trace: api → BullMQ → video worker (upstream calls, terminal move) → BullMQ → dispatcher (delivery)', async () => {
  const key = stack.newKey(5);
  const created = await stack.api('POST', '/v1/videos', key, {
    ...VIDEO_REQUEST,
    metadata: { ...VIDEO_REQUEST.metadata, callback_url: `${rx.url}/hook` },
  });
  expect(created.status).toBe(200);
  const taskId = created.body.id as string;
  await waitFor(() => rx.received.some((r) => r.body.includes(taskId)), { what: 'the callback' });

  // the delivery's span arrives last; its trace is the task's
  const deliver = await waitFor(
    () =>
      collector.spans.find(
        (s) => s.name === 'callback.deliver' && s.attributes['mediagate.task_id'] === taskId,
      ),
    { what: 'the callback.deliver span', timeoutMs: 30_000 },
  );
  const traceId = deliver.traceId;
  const inTrace = () => collector.spans.filter((s) => s.traceId === traceId);
  // the delivery's HTTP client span ends after it is exported: wait for every span to reach its parent
  await waitFor(
    () => {
      const spans = inTrace();
      const ids = new Set(spans.map((s) => s.spanId));
      return spans.some((s) => s.kind === 3 && s.parentSpanId === deliver.spanId) &&
        spans.every((s) => s.parentSpanId === '' || ids.has(s.parentSpanId))
        ? spans
        : null;
    },
    { what: 'a connected span tree', timeoutMs: 30_000 },
  );
  // the copy of the video into storage runs in the same trace (the media-copy job the success enqueued)
  await waitFor(() => inTrace().some((s) => s.kind === 5 && s.name.includes('media-copy')), {
    what: 'the media-copy consumer span in the trace',
    timeoutMs: 30_000,
  });
  const spans = inTrace();
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const ancestors = (s: ExportedSpan) => {
    const chain: ExportedSpan[] = [];
    for (let p = byId.get(s.parentSpanId); p; p = byId.get(p.parentSpanId)) chain.push(p);
    return chain;
  };

  // one root: the API's server span of the create
  const roots = spans.filter((s) => s.parentSpanId === '');
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  // named after its route pattern, not its method alone
  expect(root).toMatchObject({ service: 'mediagate-api', kind: 2, name: 'POST /v1/videos' });
  expect(root.attributes['http.route']).toBe('/v1/videos');
  expect(new Set(spans.map((s) => s.service))).toEqual(
    new Set(['mediagate-api', 'mediagate-worker-video', 'mediagate-worker-callbacks']),
  );

  const one = (pred: (s: ExportedSpan) => boolean, what: string) => {
    const found = spans.filter(pred);
    if (found.length === 0)
      throw new Error(`no ${what} span in ${JSON.stringify(spans.map((s) => [s.service, s.name]))}`);
    return found;
  };
  // the API enqueues the job (BullMQ producer span) inside the create
  const enqueue = one(
    (s) => s.service === 'mediagate-api' && s.kind === 4 && s.name.includes('video-tasks'),
    'video-tasks producer',
  )[0]!;
  expect(ancestors(enqueue)).toContain(root);
  // every run of the job is a consumer span in the video worker, under the enqueue
  const runs = one((s) => s.service === 'mediagate-worker-video' && s.kind === 5, 'video-tasks consumer');
  for (const run of runs) expect(ancestors(run)).toContain(enqueue);
  // the upstream calls (submit, then one or more polls), each with its HTTP client span
  for (const op of ['upstream.submit', 'upstream.query']) {
    for (const call of one((s) => s.name === op, op)) {
      expect(runs).toContain(ancestors(call).find((a) => a.kind === 5));
      expect(spans.some((s) => s.parentSpanId === call.spanId && s.kind === 3)).toBe(true);
    }
  }
  // the terminal move, then the callback job it enqueued, run by the dispatcher
  const succeed = one(
    (s) => s.name === 'task.succeed' && s.attributes['mediagate.task_id'] === taskId,
    'task.succeed',
  )[0]!;
  expect(runs).toContain(ancestors(succeed).find((a) => a.kind === 5));
  const callbackJob = one(
    (s) => s.service === 'mediagate-worker-video' && s.kind === 4 && s.name.includes('callbacks'),
    'callbacks producer',
  );
  const dispatch = one(
    (s) => s.service === 'mediagate-worker-callbacks' && s.kind === 5,
    'callbacks consumer',
  );
  expect(dispatch.some((d) => callbackJob.some((p) => ancestors(d).includes(p)))).toBe(true);
  expect(dispatch).toContain(ancestors(deliver).find((a) => a.kind === 5));
  const post = spans.find((s) => s.parentSpanId === deliver.spanId && s.kind === 3)!;
  expect(post.service).toBe('mediagate-worker-callbacks');
  expect(deliver.attributes['http.response.status_code']).toBe(200);
  // from the delivery back to the create: dispatcher, video worker, API
  expect(ancestors(deliver).map((s) => s.service)).toEqual(
    expect.arrayContaining(['mediagate-worker-callbacks', 'mediagate-worker-video', 'mediagate-api']),
  );
  expect(ancestors(deliver).at(-1)).toBe(root);

  // the media copy: enqueued by the run that succeeded the task, run by the video worker under it
  const copyJob = one((s) => s.kind === 4 && s.name.includes('media-copy'), 'media-copy producer');
  const copyRun = one((s) => s.kind === 5 && s.name.includes('media-copy'), 'media-copy consumer')[0]!;
  expect(copyJob.some((p) => ancestors(copyRun).includes(p))).toBe(true);
  expect(runs).toContain(ancestors(copyRun).find((a) => a.kind === 5 && a.name.includes('video-tasks')));
  // the copy's download from the vendor is a client span under it
  expect(spans.some((s) => s.kind === 3 && ancestors(s).includes(copyRun))).toBe(true);

  // BullMQ's housekeeping outside jobs (the stalled-job check, fetching the next job) starts no trace
  const housekeeping = collector.spans.filter(
    (s) => s.parentSpanId === '' && /^(startStalledCheckTimer|moveStalledJobsToWait|getNextJob)/.test(s.name),
  );
  expect(housekeeping.map((s) => `${s.service}:${s.name}`)).toEqual([]);

  // the task's log lines carry the trace id, in the API and in the worker
  expect(stack.apiProcess.output()).toContain(`"trace_id":"${traceId}"`);
  expect(stack.workers[0]!.output()).toContain(`"trace_id":"${traceId}"`);
  process.stderr.write(
    `[tracing] task ${taskId}: ${spans.length} spans in trace ${traceId}: ${[...new Set(spans.map((s) => `${s.service}:${s.name}`))].join(', ')}\n`,
  );
});
