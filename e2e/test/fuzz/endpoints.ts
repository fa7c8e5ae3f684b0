import { createHmac } from 'node:crypto';
import type { GeneratedPart } from '@mediagate/shared/testing';
import fc from 'fast-check';
import {
  type EncodedBody,
  encodedJson,
  encodedMultipart,
  type FilePart,
  oversizedForm,
  TINY_PNG,
} from './bodies';
import { authHeaders, type Credentials, oddHeaders, pathSegment, queryString } from './http-parts';
import { anyJson, mutatedJson } from './json';
import { type FuzzRequest, printable } from './kit';

/** What the fuzzer knows about the stack: credentials and real ids to put in paths and bodies. */
export interface Known extends Credentials {
  /** pools of real values per path parameter name (`:taskId` takes from `taskId`) */
  ids: Record<string, string[]>;
  email: string;
  password: string;
  /** an account the operators' endpoints may disable, top up and adjust */
  victimAccountId: string;
  paymentSecret: string;
}

export interface Endpoint {
  method: string;
  /** the route with :params named after the pools of Known.ids */
  path: string;
  /** which credential the route wants */
  auth: 'key' | 'session' | 'admin' | 'none';
  /** a valid JSON body (mutated by the fuzzer); none = the route reads no body */
  json?: (k: Known) => unknown;
  /** the route also takes a multipart form: its fields (bracket keys) and file parts */
  form?: { fields: (k: Known) => unknown; files?: FilePart[] };
  /** query keys the route reads */
  query?: string[];
  /** signs the body as the dev payment provider does (most runs), or sends a bad signature */
  signed?: boolean;
  runs: number;
}

const VIDEO = (k: Known) => ({
  model: 'wan2.6-i2v-flash-5s-720p',
  prompt: 'a paper boat drifts down a rainy street',
  metadata: {
    input: { img_url: 'https://93.184.216.34/boat.png' },
    parameters: { duration: 5, resolution: '720p', audio: true, seed: 7 },
    ...(k.ids.callbackUrl ? { callback_url: k.ids.callbackUrl[0] } : {}),
  },
});

/** One endpoint: `ep('POST /v1/videos', 'key', 1200, { json: VIDEO })` (method and path, auth, runs). */
function ep(route: string, auth: Endpoint['auth'], runs: number, more: Partial<Endpoint> = {}): Endpoint {
  const [method, path] = route.split(' ') as [string, string];
  return { method, path, auth, runs, ...more };
}

/**
 * Every route of the API (apps/api/src/routes.ts), with how to make a valid request to it; a test
 * of the API (src/openapi/openapi.test.ts) fails when a route is missing here.
 */
export const ENDPOINTS: Endpoint[] = [
  // /v1 (API key)
  ep('POST /v1/videos', 'key', 1200, { json: VIDEO, form: { fields: VIDEO } }),
  ep('GET /v1/videos', 'key', 600, { query: ['limit', 'after', 'status', 'order'] }),
  ep('GET /v1/videos/:taskId', 'key', 480),
  // the pool's tasks are finished or foreign, so each stream ends after one event (or is a 404)
  ep('GET /v1/videos/:taskId/events', 'key', 240),
  ep('POST /v1/videos/:taskId/cancel', 'key', 480),
  ep('GET /v1/videos/:taskId/content', 'key', 480, { query: ['variant'] }),
  ep('POST /v1/videos/:taskId/remix', 'key', 240, {
    json: () => ({ prompt: 'make it rain' }),
    form: { fields: () => ({ prompt: 'make it rain' }) },
  }),
  ep('POST /v1/videos/edits', 'key', 180, {
    json: (k) => ({ prompt: 'make it rain', video: { id: k.ids.taskId?.[0] } }),
    form: { fields: (k) => ({ prompt: 'make it rain', video: { id: k.ids.taskId?.[0] } }) },
  }),
  ep('POST /v1/videos/extensions', 'key', 180, {
    json: (k) => ({ prompt: 'go on', seconds: '4', video: { id: k.ids.taskId?.[0] } }),
    form: { fields: (k) => ({ prompt: 'go on', seconds: '4', video: { id: k.ids.taskId?.[0] } }) },
  }),
  ep('POST /v1/videos/characters', 'key', 120, {
    form: {
      fields: () => ({ name: 'cat' }),
      files: [{ field: 'video', filename: 'cat.png', type: 'image/png', data: TINY_PNG }],
    },
  }),
  ep('GET /v1/videos/characters/:characterId', 'key', 120),
  // after the routes that read a task's video: this one deletes it
  ep('DELETE /v1/videos/:taskId', 'key', 360),
  ep('GET /v1/videos/:taskId/callbacks', 'key', 360),
  ep('POST /v1/videos/:taskId/callbacks/:deliveryId/redeliver', 'key', 480),
  ep('GET /v1/webhooks/secret', 'key', 180),
  ep('POST /v1/webhooks/secret/rotate', 'key', 180),
  ep('GET /v1/webhooks/settings', 'key', 180),
  ep('POST /v1/webhooks/settings', 'key', 480, { json: () => ({ video_processing: true }) }),
  ep('GET /v1/webhooks/endpoints', 'key', 120),
  ep('POST /v1/webhooks/endpoints/:endpointId/enable', 'key', 240),
  ep('POST /v1/images/generations', 'key', 900, {
    json: () => ({ model: 'seedream-4.5', prompt: 'two foxes', n: 1, size: '2K', response_format: 'url' }),
  }),
  ep('POST /v1/images/edits', 'key', 900, {
    json: () => ({ model: 'qwen-image-edit', prompt: 'a scarf', image: 'https://93.184.216.34/fox.png' }),
    form: {
      fields: () => ({
        model: 'qwen-image-edit',
        prompt: 'give the fox a scarf',
        response_format: 'b64_json',
      }),
      files: [{ field: 'image', filename: 'fox.png', type: 'image/png', data: TINY_PNG }],
    },
  }),
  ep('GET /v1/models', 'key', 180),
  ep('GET /v1/models/:modelId', 'key', 360),

  // /console/api (registration needs nothing; the rest a console session)
  ep('POST /console/api/register', 'none', 360, {
    json: () => ({ email: 'fuzz-newcomer@example.test', password: 'a long enough password' }),
  }),
  ep('POST /console/api/register/resend', 'none', 300, {
    json: () => ({ email: 'fuzz-pending@example.test' }),
  }),
  ep('POST /console/api/register/verify', 'none', 360, {
    json: () => ({ email: 'fuzz-pending@example.test', code: '000000', password: 'a long enough password' }),
  }),
  ep('POST /console/api/login', 'none', 360, { json: (k) => ({ email: k.email, password: k.password }) }),
  ep('GET /console/api/me', 'session', 180),
  ep('GET /console/api/session', 'none', 180),
  ep('POST /console/api/tokens', 'session', 600, {
    json: () => ({
      name: 'fuzzed',
      quota_usd: 1.5,
      expires_at: 4_102_444_800,
      allowed_models: ['seedream-4.5'],
      allowed_ips: ['10.0.0.0/8', '2001:db8::/32'],
    }),
  }),
  ep('GET /console/api/tokens', 'session', 180),
  ep('PATCH /console/api/tokens/:tokenId', 'session', 600, {
    json: () => ({ name: 'renamed', status: 'active', quota_usd: null, allowed_ips: ['1.2.3.4'] }),
  }),
  ep('DELETE /console/api/tokens/:tokenId', 'session', 300),
  ep('GET /console/api/balance', 'session', 180),
  ep('GET /console/api/ledger', 'session', 360, { query: ['limit', 'before', 'kind'] }),
  ep('GET /console/api/usage', 'session', 360, { query: ['limit', 'before', 'model'] }),
  ep('GET /console/api/usage/summary', 'session', 180, { query: ['days', 'tz'] }),
  ep('GET /console/api/models', 'session', 60),
  ep('GET /console/api/quickstart', 'session', 60),
  ep('POST /console/api/password/forgot', 'none', 120, { json: (k) => ({ email: k.email }) }),
  ep('POST /console/api/password/reset', 'none', 180, {
    json: (k) => ({ email: k.email, code: '123456', password: 'a new password 1' }),
  }),
  ep('POST /console/api/password/change', 'session', 120, {
    // a wrong current password: the fuzzer's account keeps its own
    json: () => ({ current_password: 'not the password', new_password: 'another password 2' }),
  }),
  ep('GET /console/api/videos/events', 'session', 60),
  ep('GET /console/api/videos', 'session', 180, {
    query: ['limit', 'after', 'status', 'id', 'key_id', 'model', 'created_from', 'created_to'],
  }),
  ep('GET /console/api/videos/:taskId', 'session', 120),
  ep('GET /console/api/videos/:taskId/callbacks', 'session', 90),
  ep('POST /console/api/videos/:taskId/callbacks/:deliveryId/redeliver', 'session', 90),
  ep('GET /console/api/webhooks/secret', 'session', 60),
  ep('POST /console/api/webhooks/secret/rotate', 'session', 60),
  ep('GET /console/api/webhooks/settings', 'session', 60),
  ep('POST /console/api/webhooks/settings', 'session', 90, { json: () => ({ video_processing: true }) }),
  ep('GET /console/api/webhooks/endpoints', 'session', 60),
  ep('POST /console/api/webhooks/endpoints/:endpointId/enable', 'session', 90),
  ep('POST /console/api/webhooks/test', 'session', 60, {
    json: (k) => ({ url: k.ids.callbackUrl?.[0] ?? 'https://93.184.216.34/hook' }),
  }),

  // /admin/api (an admin session)
  ep('GET /admin/api/accounts', 'admin', 360, { query: ['email', 'limit', 'after'] }),
  ep('GET /admin/api/accounts/:accountId', 'admin', 240),
  ep('POST /admin/api/accounts/:accountId/disable', 'admin', 180),
  ep('POST /admin/api/accounts/:accountId/enable', 'admin', 180),
  ep('PATCH /admin/api/accounts/:accountId/limits', 'admin', 360, {
    json: () => ({ rpm_limit: 1000, max_active_video_tasks: null }),
  }),
  ep('POST /admin/api/accounts/:accountId/topups', 'admin', 360, {
    json: () => ({ amount_cny: 50, reference: 'bank-1', note: 'fuzz' }),
  }),
  ep('POST /admin/api/accounts/:accountId/adjustments', 'admin', 360, {
    json: () => ({ amount_usd: -0.01, reason: 'fuzz', reference: 'adj-1' }),
  }),
  ep('GET /admin/api/tasks', 'admin', 480, {
    query: [
      'status',
      'model',
      'account_id',
      'older_than_seconds',
      'created_after',
      'created_before',
      'after',
      'limit',
    ],
  }),
  ep('POST /admin/api/tasks/:taskId/retry', 'admin', 240),
  ep('GET /admin/api/tasks/:taskId', 'admin', 120),
  ep('POST /console/api/playground/videos', 'session', 240, { json: VIDEO }),
  ep('GET /console/api/playground/videos/:taskId/events', 'session', 40),
  ep('POST /console/api/playground/images/generations', 'session', 240, {
    json: () => ({ model: 'seedream-4.0', prompt: 'two foxes', n: 1, size: '1K' }),
  }),
  ep('POST /console/api/playground/images/edits', 'session', 240, {
    json: () => ({ model: 'qwen-image-edit', prompt: 'a scarf', image: 'https://93.184.216.34/fox.png' }),
    form: {
      fields: () => ({ model: 'qwen-image-edit', prompt: 'give the fox a scarf' }),
      files: [{ field: 'image', filename: 'fox.png', type: 'image/png', data: TINY_PNG }],
    },
  }),
  ep('POST /console/api/playground/uploads', 'session', 120, {
    form: {
      fields: () => ({}),
      files: [{ field: 'file', filename: 'fox.png', type: 'image/png', data: TINY_PNG }],
    },
  }),
  ep('GET /console/api/playground/uploads', 'session', 60),
  ep('DELETE /console/api/playground/uploads/:uploadId', 'session', 120),
  ep('GET /console/api/playground/images/download', 'session', 120, { query: ['url', 'exp', 'sig', 'name'] }),
  ep('GET /admin/api/tasks/:taskId/callbacks', 'admin', 120),
  ep('GET /admin/api/accounts/:accountId/ledger', 'admin', 240, { query: ['limit', 'before', 'kind'] }),
  ep('GET /admin/api/accounts/:accountId/topups', 'admin', 120, { query: ['limit', 'before'] }),
  ep('GET /admin/api/accounts/:accountId/keys', 'admin', 120),
  ep('GET /admin/api/queues', 'admin', 120),
  ep('POST /admin/api/queues/:queue/pause', 'admin', 120),
  ep('POST /admin/api/queues/:queue/resume', 'admin', 120),

  ep('GET /admin/api/transfer-references/:reference', 'admin', 120),
  // no provider is configured in the fuzzed stack: a refund of a real top-up answers 503
  ep('POST /admin/api/topups/:topUpId/refund', 'admin', 120, {
    json: () => ({ amount_cny: 1, reason: 'fuzz' }),
  }),
  ep('GET /admin/api/topups/:topUpId/refunds', 'admin', 120),
  ep('GET /admin/api/topup-refunds', 'admin', 120, { query: ['status', 'limit'] }),
  ep('GET /admin/api/webhook-endpoints', 'admin', 120, { query: ['account_id', 'after', 'limit'] }),
  ep('POST /admin/api/accounts/:accountId/webhook-endpoints/:endpointId/enable', 'admin', 120),
  ep('GET /admin/api/audit-log', 'admin', 240, {
    query: ['account_id', 'target_id', 'action', 'before', 'limit'],
  }),

  // top-ups by QR code (no provider is configured in the fuzzed stack: 503 on create)
  ep('GET /console/api/topups/options', 'session', 60),
  ep('POST /console/api/topups', 'session', 180, { json: () => ({ amount_cny: 100, provider: 'alipay' }) }),
  ep('GET /console/api/topups', 'session', 120, { query: ['limit', 'before'] }),
  ep('GET /console/api/topups/:topUpId', 'session', 120),
  ep('POST /console/api/topups/:topUpId/cancel', 'session', 120),

  // payment providers (a signature, no session)
  ep('POST /payments/alipay/notify', 'none', 120, { json: () => ({ out_trade_no: 'top_1' }) }),
  ep('POST /payments/wechat/notify', 'none', 120, { json: () => ({ id: 'evt_1' }) }),
  ep('POST /payments/:provider/notify', 'none', 600, {
    json: (k) => ({ reference: 'QR-1', account_id: k.victimAccountId, amount_usd: 10, currency: 'USD' }),
    signed: true,
  }),

  // signed media links (no key): real links of the first task, and odd ones
  ep('GET /media/:taskId/:file', 'none', 480, { query: ['exp', 'sig'] }),
  ep('GET /media/uploads/:file', 'none', 120),

  // operations: health, metrics (its token is not among the credentials) and this API's document
  ep('GET /healthz', 'none', 40),
  ep('GET /readyz', 'none', 40),
  ep('GET /metrics', 'none', 40),
  ep('GET /openapi.json', 'none', 40),
  ep('GET /admin/api/openapi.json', 'admin', 40),

  // the logout ends the session it is sent with: last of the console routes
  ep('POST /console/api/logout', 'session', 120),
];

export const endpointName = (e: Endpoint) => `${e.method} ${e.path}`;

const NO_BODY: EncodedBody = { headers: {} };

function bodies(e: Endpoint, k: Known): fc.Arbitrary<EncodedBody> {
  const options: Array<fc.WeightedArbitrary<EncodedBody>> = [];
  if (e.json) {
    options.push({ weight: 8, arbitrary: encodedJson(mutatedJson(e.json(k))) });
    if (!e.form) options.push({ weight: 1, arbitrary: encodedMultipart(e.json(k)) });
  } else {
    options.push(
      { weight: 6, arbitrary: fc.constant(NO_BODY) },
      { weight: 1, arbitrary: encodedJson(anyJson) },
    );
  }
  if (e.form) options.push({ weight: 4, arbitrary: encodedMultipart(e.form.fields(k), e.form.files) });
  return fc.oneof(...options);
}

function devSignature(secret: string, body: Buffer): string {
  const at = Math.floor(Date.now() / 1000);
  return `t=${at},v1=${createHmac('sha256', secret).update(`${at}.`).update(body).digest('hex')}`;
}

const BAD_SIGNATURES = [
  '',
  't=1,v1=00',
  `t=${'9'.repeat(30)},v1=${'a'.repeat(64)}`,
  'v1=',
  't=,v1=,',
  '=,=,=',
];

/** Requests to `e`: odd path parameters, query strings, credentials, headers and bodies. */
export function requestsFor(e: Endpoint, k: Known): fc.Arbitrary<FuzzRequest> {
  const params = [...e.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  return fc
    .record({
      segments: fc.tuple(...params.map((p) => pathSegment(k.ids[p] ?? []))),
      query: e.query
        ? queryString(e.query, k.ids.taskId ?? [])
        : fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString(['x']) }),
      auth: authHeaders(k, e.auth),
      odd: oddHeaders,
      body: bodies(e, k),
      chunked: fc.oneof(
        { weight: 6, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      signature: e.signed
        ? fc.oneof(
            { weight: 4, arbitrary: fc.constant<string | null>(null) },
            { weight: 1, arbitrary: fc.constantFrom(...BAD_SIGNATURES) },
          )
        : fc.constant(null),
      oversized:
        e.json || e.form
          ? fc.oneof(
              { weight: 40, arbitrary: fc.constant<GeneratedPart[] | null>(null) },
              {
                weight: 1,
                arbitrary: oversizedForm(
                  e.form?.fields(k) ?? e.json!(k),
                  e.form?.files?.map((f) => f.field),
                ),
              },
            )
          : fc.constant<GeneratedPart[] | null>(null),
    })
    .map(({ segments, query, auth, odd, body, chunked, signature, oversized }) => {
      let i = 0;
      const path = e.path.replace(/:(\w+)/g, () => segments[i++]!) + query;
      const req: FuzzRequest = oversized
        ? { method: e.method, path, headers: framingFree({ ...odd, ...auth }), streamedForm: oversized }
        : {
            method: e.method,
            path,
            headers: { ...odd, ...auth, ...body.headers },
            body: body.body,
            chunked: chunked && body.body !== undefined,
          };
      if (e.signed) {
        if (signature === null)
          req.sign = (b) => ({ 'x-payment-signature': devSignature(k.paymentSecret, b) });
        else req.headers['x-payment-signature'] = signature;
      }
      return printable(req);
    });
}

/** Headers without the ones that frame a body (a streamed form frames itself). */
function framingFree(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([k]) => !/^(content-length|transfer-encoding|content-type)$/i.test(k)),
  );
}
