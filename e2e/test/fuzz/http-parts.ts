import fc from 'fast-check';

// Path segments, query strings and headers (credentials included), hostile and valid. Lengths stay
// under Node's 16 KB limit for the request line and headers together: past it Node itself answers
// 431 without the app ever seeing the request.

const URL_SAFE = [..."abcXYZ019-._~!$&'()*+,;=:@"];
const SPECIAL_SEGMENTS = [
  '%',
  '%zz',
  '%00',
  '%2e%2e',
  '..',
  '.',
  '..%2f..%2fetc%2fpasswd',
  '%2F',
  '%c0%ae%c0%ae',
  '%ff%fe',
  '%e2%82',
  '%ED%A0%80',
  '%25',
  '%u0041',
  '%F0%9F%98%80',
  ';',
  '*',
  'null',
  'undefined',
  '0',
  '-1',
  '__proto__',
  'constructor',
  'task_ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
  'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'TASK_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'task_01arz3ndektsv4rrffq69g5fav',
  'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'key_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'a/b',
  '../models',
  '',
  'video-tasks',
  'callbacks',
  'dev',
];

/** A path segment: a known good value, or long, unicode, percent-encoded, traversal-like. */
export function pathSegment(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: known.length > 0 ? 8 : 0, arbitrary: fc.constantFrom(...(known.length ? known : ['x'])) },
    { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_SEGMENTS) },
    {
      weight: 2,
      arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
    },
    { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...URL_SAFE), minLength: 1, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 2_000 }).map((n) => 'x'.repeat(n)) },
  );
}

const QUERY_VALUES = [
  '1',
  '0',
  '-1',
  '20',
  '100',
  '101',
  '500',
  '1e3',
  '0x10',
  '1.5',
  'NaN',
  'Infinity',
  '',
  'pending',
  'completed',
  'succeeded',
  'failed',
  'desc',
  'asc',
  'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  '2024-01-01T00:00:00Z',
  '2024-13-45T99:99:99Z',
  '1700000000',
  '99999999999999999999',
  '8640000000001',
  '9999999999999',
  '%00',
  '%zz',
  '%',
  '%F0%9F%98%80',
  'seedream-4.5',
  'x%40example.test',
];

/** A query string: known keys with odd values, unknown keys, repeats, brackets, broken escapes. */
export function queryString(
  keys: readonly string[],
  knownValues: readonly string[] = [],
): fc.Arbitrary<string> {
  const key = fc.oneof(
    fc.constantFrom(...keys, ...keys.map((k) => `${k}[]`), ...keys.map((k) => `${k}[x]`), 'x'),
    fc.string({ unit: fc.constantFrom(...URL_SAFE), maxLength: 12 }),
  );
  const value = fc.oneof(
    fc.constantFrom(...QUERY_VALUES, ...knownValues),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
    fc.integer({ min: 100, max: 600 }).map((n) => '9'.repeat(n)),
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    {
      weight: 6,
      arbitrary: fc
        .array(fc.tuple(key, value), { minLength: 1, maxLength: 5 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '?',
        '?&',
        '?=',
        '?&&=&',
        '?%',
        '?a=%',
        '?limit=%zz',
        '?a[b]=c',
        '?__proto__[x]=1',
        '?constructor[prototype][x]=1',
        '?limit',
        '?limit=&limit=',
        `?${'a=1&'.repeat(1_100)}`,
      ),
    },
  );
}

/** Header values Node lets a client send: tab, printable ASCII and Latin-1. */
export const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

export interface Credentials {
  key: string;
  session: string;
  admin: string;
}

/** Authorization and cookie headers: the endpoint's credential mostly, else none, another kind, or garbage. */
export function authHeaders(
  c: Credentials,
  kind: 'key' | 'session' | 'admin' | 'none',
): fc.Arbitrary<Record<string, string>> {
  const valid: Array<Record<string, string>> =
    kind === 'key'
      ? [{ authorization: `Bearer ${c.key}` }]
      : kind === 'none'
        ? [{}]
        : [
            { authorization: `Bearer ${kind === 'admin' ? c.admin : c.session}` },
            { cookie: `mg_session=${kind === 'admin' ? c.admin : c.session}` },
          ];
  const garbageAuth = [
    '',
    'Bearer',
    'Bearer ',
    'Bearer  ',
    'bearer',
    'Basic dXNlcjpwYXNz',
    'Digest x',
    `Bearer ${c.key}x`,
    `Bearer ${c.key.slice(0, -1)}`,
    `Bearer ${c.key.toUpperCase()}`,
    `Bearer ${c.key} ${c.key}`,
    `Bearer\t${c.key}`,
    `BEARER ${c.key}`,
    `Bearer ${c.session}x`,
    `Bearer ${c.session.toUpperCase()}`,
    'Bearer cs_',
    'Bearer sk-',
    `Bearer sk-${'A'.repeat(48)}`,
    `Bearer cs_${'A'.repeat(43)}`,
    `Bearer ${'x'.repeat(2_000)}`,
    'Bearer é',
    'Bearer \u00ff\u00fe',
  ];
  const garbageCookie = [
    'mg_session=',
    'mg_session',
    'mg_session=%',
    'mg_session=%zz',
    'mg_session=%E0%A4%A',
    `mg_session=${c.session}; mg_session=x`,
    `mg_session=cs_${'A'.repeat(43)}`,
    ';;;=',
    '=',
    'a=b;mg_session=%ff',
    `mg_session=${c.session}%`,
    `mg_session="${c.session}"`,
  ];
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Record<string, string>>(
        { authorization: `Bearer ${c.key}` },
        { authorization: `Bearer ${c.session}` },
        { authorization: `Bearer ${c.admin}` },
        { cookie: `mg_session=${c.admin}` },
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom(...garbageAuth),
          headerText,
          headerText.map((s) => `Bearer ${s}`),
        )
        .map((authorization) => ({ authorization })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...garbageCookie).map((cookie) => ({ cookie })) },
  );
}

/** Other headers a client may send wrong: request ids, idempotency keys, agents, forwarding. */
export const oddHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        'x-request-id': fc.oneof(headerText, fc.constant('a'.repeat(1_000))),
        'idempotency-key': fc.oneof(headerText, fc.constantFrom('', ' ', 'k'.repeat(256), 'fuzz-key-1')),
        'user-agent': fc.oneof(headerText, fc.constant('u'.repeat(2_000))),
        'x-forwarded-for': fc.oneof(headerText, fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'unknown')),
        accept: fc.constantFrom('*/*', 'text/html', 'application/xml', ''),
        'accept-charset': fc.constantFrom('latin1', 'utf-16', 'x'),
      },
      { requiredKeys: [] },
    ),
  },
);
