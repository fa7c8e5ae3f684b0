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

/** Every route of the API (apps/api/src/app.ts), with how to make a valid request to it. */
export const ENDPOINTS: Endpoint[] = [
  // /v1 (API key)
  { method: 'POST', path: '/v1/videos', auth: 'key', json: VIDEO, form: { fields: VIDEO }, runs: 1200 },
  { method: 'GET', path: '/v1/videos', auth: 'key', query: ['limit', 'after', 'status', 'order'], runs: 600 },
  { method: 'GET', path: '/v1/videos/:taskId', auth: 'key', runs: 480 },
  // the pool's tasks are finished or foreign, so each stream ends after one event (or is a 404)
  { method: 'GET', path: '/v1/videos/:taskId/events', auth: 'key', runs: 240 },
  { method: 'POST', path: '/v1/videos/:taskId/cancel', auth: 'key', runs: 480 },
  { method: 'GET', path: '/v1/videos/:taskId/content', auth: 'key', query: ['variant'], runs: 480 },
  {
    method: 'POST',
    path: '/v1/videos/:taskId/remix',
    auth: 'key',
    json: () => ({ prompt: 'make it rain' }),
    form: { fields: () => ({ prompt: 'make it rain' }) },
    runs: 240,
  },
  {
    method: 'POST',
    path: '/v1/videos/edits',
    auth: 'key',
    json: (k) => ({ prompt: 'make it rain', video: { id: k.ids.taskId?.[0] } }),
    form: { fields: (k) => ({ prompt: 'make it rain', video: { id: k.ids.taskId?.[0] } }) },
    runs: 180,
  },
  {
    method: 'POST',
    path: '/v1/videos/extensions',
    auth: 'key',
    json: (k) => ({ prompt: 'go on', seconds: '4', video: { id: k.ids.taskId?.[0] } }),
    form: { fields: (k) => ({ prompt: 'go on', seconds: '4', video: { id: k.ids.taskId?.[0] } }) },
    runs: 180,
  },
  {
    method: 'POST',
    path: '/v1/videos/characters',
    auth: 'key',
    form: {
      fields: () => ({ name: 'cat' }),
      files: [{ field: 'video', filename: 'cat.png', type: 'image/png', data: TINY_PNG }],
    },
    runs: 120,
  },
  { method: 'GET', path: '/v1/videos/characters/:characterId', auth: 'key', runs: 120 },
  // after the routes that read a task's video: this one deletes it
  { method: 'DELETE', path: '/v1/videos/:taskId', auth: 'key', runs: 360 },
  { method: 'GET', path: '/v1/videos/:taskId/callbacks', auth: 'key', runs: 360 },
  { method: 'POST', path: '/v1/videos/:taskId/callbacks/:deliveryId/redeliver', auth: 'key', runs: 480 },
  { method: 'GET', path: '/v1/webhooks/secret', auth: 'key', runs: 180 },
  { method: 'POST', path: '/v1/webhooks/secret/rotate', auth: 'key', runs: 180 },
  { method: 'GET', path: '/v1/webhooks/settings', auth: 'key', runs: 180 },
  {
    method: 'POST',
    path: '/v1/webhooks/settings',
    auth: 'key',
    json: () => ({ video_processing: true }),
    runs: 480,
  },
  {
    method: 'POST',
    path: '/v1/images/generations',
    auth: 'key',
    json: () => ({ model: 'seedream-4.5', prompt: 'two foxes', n: 1, size: '2K', response_format: 'url' }),
    runs: 900,
  },
  {
    method: 'POST',
    path: '/v1/images/edits',
    auth: 'key',
    json: () => ({ model: 'qwen-image-edit', prompt: 'a scarf', image: 'https://93.184.216.34/fox.png' }),
    form: {
      fields: () => ({
        model: 'qwen-image-edit',
        prompt: 'give the fox a scarf',
        response_format: 'b64_json',
      }),
      files: [{ field: 'image', filename: 'fox.png', type: 'image/png', data: TINY_PNG }],
    },
    runs: 900,
  },
  { method: 'GET', path: '/v1/models', auth: 'key', runs: 180 },
  { method: 'GET', path: '/v1/models/:modelId', auth: 'key', runs: 360 },

  // /console/api (registration needs nothing; the rest a console session)
  {
    method: 'POST',
    path: '/console/api/register',
    auth: 'none',
    json: () => ({ email: 'fuzz-newcomer@example.test', password: 'a long enough password' }),
    runs: 360,
  },
  {
    method: 'POST',
    path: '/console/api/register/resend',
    auth: 'none',
    json: () => ({ email: 'fuzz-pending@example.test' }),
    runs: 300,
  },
  {
    method: 'POST',
    path: '/console/api/register/verify',
    auth: 'none',
    json: () => ({ email: 'fuzz-pending@example.test', code: '000000', password: 'a long enough password' }),
    runs: 360,
  },
  {
    method: 'POST',
    path: '/console/api/login',
    auth: 'none',
    json: (k) => ({ email: k.email, password: k.password }),
    runs: 360,
  },
  { method: 'GET', path: '/console/api/me', auth: 'session', runs: 180 },
  {
    method: 'POST',
    path: '/console/api/tokens',
    auth: 'session',
    json: () => ({
      name: 'fuzzed',
      quota_usd: 1.5,
      expires_at: 4_102_444_800,
      allowed_models: ['seedream-4.5'],
      allowed_ips: ['10.0.0.0/8', '2001:db8::/32'],
    }),
    runs: 600,
  },
  { method: 'GET', path: '/console/api/tokens', auth: 'session', runs: 180 },
  {
    method: 'PATCH',
    path: '/console/api/tokens/:tokenId',
    auth: 'session',
    json: () => ({ name: 'renamed', status: 'active', quota_usd: null, allowed_ips: ['1.2.3.4'] }),
    runs: 600,
  },
  { method: 'DELETE', path: '/console/api/tokens/:tokenId', auth: 'session', runs: 300 },
  { method: 'GET', path: '/console/api/balance', auth: 'session', runs: 180 },
  {
    method: 'GET',
    path: '/console/api/ledger',
    auth: 'session',
    query: ['limit', 'before', 'kind'],
    runs: 360,
  },
  {
    method: 'GET',
    path: '/console/api/usage',
    auth: 'session',
    query: ['limit', 'before', 'model'],
    runs: 360,
  },
  { method: 'GET', path: '/console/api/usage/summary', auth: 'session', query: ['days', 'tz'], runs: 180 },
  { method: 'GET', path: '/console/api/models', auth: 'session', runs: 60 },
  {
    method: 'POST',
    path: '/console/api/password/forgot',
    auth: 'none',
    json: (k) => ({ email: k.email }),
    runs: 120,
  },
  {
    method: 'POST',
    path: '/console/api/password/reset',
    auth: 'none',
    json: (k) => ({ email: k.email, code: '123456', password: 'a new password 1' }),
    runs: 180,
  },
  {
    method: 'POST',
    path: '/console/api/password/change',
    auth: 'session',
    // a wrong current password: the fuzzer's account keeps its own
    json: () => ({ current_password: 'not the password', new_password: 'another password 2' }),
    runs: 120,
  },
  {
    method: 'GET',
    path: '/console/api/videos',
    auth: 'session',
    query: ['limit', 'after', 'status'],
    runs: 180,
  },
  { method: 'GET', path: '/console/api/videos/:taskId', auth: 'session', runs: 120 },
  { method: 'GET', path: '/console/api/videos/:taskId/callbacks', auth: 'session', runs: 90 },
  {
    method: 'POST',
    path: '/console/api/videos/:taskId/callbacks/:deliveryId/redeliver',
    auth: 'session',
    runs: 90,
  },
  { method: 'GET', path: '/console/api/webhooks/secret', auth: 'session', runs: 60 },
  { method: 'POST', path: '/console/api/webhooks/secret/rotate', auth: 'session', runs: 60 },
  { method: 'GET', path: '/console/api/webhooks/settings', auth: 'session', runs: 60 },
  {
    method: 'POST',
    path: '/console/api/webhooks/settings',
    auth: 'session',
    json: () => ({ video_processing: true }),
    runs: 90,
  },
  {
    method: 'POST',
    path: '/console/api/webhooks/test',
    auth: 'session',
    json: (k) => ({ url: k.ids.callbackUrl?.[0] ?? 'https://93.184.216.34/hook' }),
    runs: 60,
  },

  // /admin/api (an admin session)
  {
    method: 'GET',
    path: '/admin/api/accounts',
    auth: 'admin',
    query: ['email', 'limit', 'after'],
    runs: 360,
  },
  { method: 'GET', path: '/admin/api/accounts/:accountId', auth: 'admin', runs: 240 },
  { method: 'POST', path: '/admin/api/accounts/:accountId/disable', auth: 'admin', runs: 180 },
  { method: 'POST', path: '/admin/api/accounts/:accountId/enable', auth: 'admin', runs: 180 },
  {
    method: 'PATCH',
    path: '/admin/api/accounts/:accountId/limits',
    auth: 'admin',
    json: () => ({ rpm_limit: 1000, max_active_video_tasks: null }),
    runs: 360,
  },
  {
    method: 'POST',
    path: '/admin/api/accounts/:accountId/topups',
    auth: 'admin',
    json: () => ({ amount_usd: 10, reference: 'bank-1', note: 'fuzz' }),
    runs: 360,
  },
  {
    method: 'POST',
    path: '/admin/api/accounts/:accountId/adjustments',
    auth: 'admin',
    json: () => ({ amount_usd: -0.01, reason: 'fuzz', reference: 'adj-1' }),
    runs: 360,
  },
  {
    method: 'GET',
    path: '/admin/api/tasks',
    auth: 'admin',
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
    runs: 480,
  },
  { method: 'POST', path: '/admin/api/tasks/:taskId/retry', auth: 'admin', runs: 240 },
  { method: 'GET', path: '/admin/api/queues', auth: 'admin', runs: 120 },
  { method: 'POST', path: '/admin/api/queues/:queue/pause', auth: 'admin', runs: 120 },
  { method: 'POST', path: '/admin/api/queues/:queue/resume', auth: 'admin', runs: 120 },

  // payment providers (a signature, no session)
  {
    method: 'POST',
    path: '/payments/:provider/notify',
    auth: 'none',
    json: (k) => ({ reference: 'QR-1', account_id: k.victimAccountId, amount_usd: 10, currency: 'USD' }),
    signed: true,
    runs: 600,
  },

  // signed media links (no key): real links of the first task, and odd ones
  { method: 'GET', path: '/media/:taskId/:file', auth: 'none', query: ['exp', 'sig'], runs: 480 },

  // the logout ends the session it is sent with: last of the console routes
  { method: 'POST', path: '/console/api/logout', auth: 'session', runs: 120 },
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
