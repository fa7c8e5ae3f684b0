import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { GeneratedPart } from '@mediagate/shared/testing';
import fc from 'fast-check';
import { type Json, toText, weirdString } from './json';

// How bodies travel: JSON (valid, damaged, mislabelled, empty, compressed) and multipart forms
// (well-formed from a template, with mutated fields and files, or broken).

export interface EncodedBody {
  headers: Record<string, string>;
  body?: Buffer;
}

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/merge-patch+json',
];
const ODD_TYPES = [
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'application/xml',
  'application/octet-stream',
  'image/png',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/mixed; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=nope',
  'application/json; charset="',
  'application/json; =;;',
  '*/*',
  ';;;',
  'application/',
  'a'.repeat(1000),
];
const BROKEN_JSON = [
  '{',
  '}',
  '{"a":}',
  '{a:1}',
  "{'a':1}",
  '[1,]',
  '{"a":1,}',
  'nul',
  'NaN',
  '\ufeff{}',
  '{"a":1}//c',
  '{"a":"\\ud800"}',
  '{"a":"\\u00"}',
  '{"a":"\\x41"}',
  '\u0000',
  '"unterminated',
  '{"a":1}{"b":2}',
  ' ',
  '\n\n',
];

const bytesArb = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a));

const brokenJson: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(...BROKEN_JSON).map((s) => Buffer.from(s)),
  bytesArb,
  // invalid UTF-8 inside a string
  fc
    .constantFrom([0xff], [0xfe, 0xff], [0xc0, 0xae], [0xed, 0xa0, 0x80], [0xe2, 0x82])
    .map((b) => Buffer.concat([Buffer.from('{"model":"'), Buffer.from(b), Buffer.from('","prompt":"x"}')])),
);

/** Cuts a valid text short or splices a stray character into it. */
function damaged(text: Buffer, at: number, what: number): Buffer {
  const i = text.length === 0 ? 0 : at % text.length;
  if (what % 2 === 0) return text.subarray(0, i);
  return Buffer.concat([
    text.subarray(0, i),
    Buffer.from(['"', '{', ']', '\\', ',', '\u0000'][what % 6]!),
    text.subarray(i),
  ]);
}

function compressed(body: Buffer, encoding: string): Buffer {
  if (encoding === 'gzip') return gzipSync(body);
  if (encoding === 'deflate') return deflateSync(body);
  if (encoding === 'br') return brotliCompressSync(body);
  return body;
}

/** A JSON document, as JSON mostly, otherwise damaged, mislabelled, empty or compressed. */
export function encodedJson(doc: fc.Arbitrary<Json>): fc.Arbitrary<EncodedBody> {
  const text = doc.map((d) => Buffer.from(toText(d)));
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .tuple(text, fc.constantFrom(...JSON_TYPES))
        .map(([body, type]) => ({ headers: { 'content-type': type }, body })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(text, fc.nat(), fc.nat()).map(([t, at, what]) => ({
        headers: { 'content-type': 'application/json' },
        body: damaged(t, at, what),
      })),
    },
    {
      weight: 2,
      arbitrary: brokenJson.map((body) => ({ headers: { 'content-type': 'application/json' }, body })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.oneof(text, bytesArb), fc.option(fc.constantFrom(...ODD_TYPES), { nil: undefined }))
        .map(
          ([body, type]): EncodedBody => ({
            headers: type === undefined ? {} : { 'content-type': type },
            body,
          }),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<EncodedBody>(
        { headers: {} },
        { headers: { 'content-type': 'application/json' } },
        { headers: { 'content-type': 'application/json' }, body: Buffer.alloc(0) },
        { headers: {}, body: Buffer.alloc(0) },
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          text,
          fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x-nope', 'gzip, br'),
          fc.boolean(),
        )
        .map(([body, encoding, honest]) => ({
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
          body: honest ? compressed(body, encoding) : body,
        })),
    },
  );
}

/** Form fields of an object, with bracket keys for nesting (what the openai client sends). */
export function formFields(v: unknown, prefix = ''): Array<[string, string]> {
  if (v !== null && typeof v === 'object') {
    return Object.entries(v).flatMap(([k, x]) => formFields(x, prefix ? `${prefix}[${k}]` : k));
  }
  return [[prefix, String(v)]];
}

export interface FilePart {
  field: string;
  filename: string;
  type: string;
  data: Buffer;
}

const FIELD_NAMES = [
  'metadata[__proto__][x]',
  'constructor[prototype][x]',
  '__proto__',
  'metadata',
  'metadata[input]',
  'metadata[][]',
  'metadata[parameters][duration]',
  'metadata[parameters][audio]',
  '[',
  'a]]',
  '',
  'image',
  'n',
  'size',
  'x'.repeat(500),
];

/** A 1x1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

const fileData = fc.oneof(
  fc.constant(TINY_PNG),
  fc.constant(Buffer.alloc(0)),
  bytesArb,
  fc.integer({ min: 1, max: 300_000 }).map((n) => Buffer.concat([TINY_PNG, Buffer.alloc(n, 7)])),
);

function multipartBytes(
  fields: Array<[string, string | Buffer]>,
  files: FilePart[],
  boundary: string,
): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(value),
      Buffer.from('\r\n'),
    );
  }
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`,
      ),
      f.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

/**
 * A multipart form from a valid template (fields as bracket keys, `files` as file parts), with
 * mutated, dropped and added fields and files, sometimes broken (truncated, wrong or missing
 * boundary, garbage part headers).
 */
export function encodedMultipart(template: unknown, files: FilePart[] = []): fc.Arbitrary<EncodedBody> {
  const base = formFields(template);
  const fieldEdits = fc.array(
    fc.record({
      kind: fc.constantFrom('drop', 'value', 'add', 'add', 'bytes', 'many'),
      at: fc.nat(),
      name: fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 20 })),
      value: weirdString,
      bytes: badUtf8,
      count: fc.integer({ min: 40, max: 120 }),
    }),
    { maxLength: 3 },
  );
  const fileEdits = fc.array(
    fc.record({
      kind: fc.constantFrom('drop', 'data', 'add'),
      at: fc.nat(),
      field: fc.constantFrom('image', 'image[]', 'mask', 'file', 'prompt', 'model'),
      type: fc.constantFrom('image/png', 'image/jpeg', 'text/plain', 'application/octet-stream', ''),
      data: fileData,
    }),
    { maxLength: 2 },
  );
  const breakage = fc.oneof(
    { weight: 6, arbitrary: fc.constant('none') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'truncate',
        'no-end',
        'wrong-boundary',
        'no-boundary',
        'junk-headers',
        'no-crlf',
      ),
    },
  );
  return fc
    .tuple(
      fieldEdits,
      fileEdits,
      breakage,
      fc.nat(),
      fc.constantFrom('fuzzBoundary123', 'x', 'b'.repeat(100), '"quoted"'),
    )
    .map(([fe, fi, broken, cut, boundary]) => {
      const fields = base.map((f): [string, string | Buffer] => [...f]);
      for (const e of fe) {
        const i = fields.length ? e.at % fields.length : 0;
        if (e.kind === 'drop') fields.splice(i, 1);
        else if (e.kind === 'value' && fields[i]) fields[i] = [fields[i]![0], e.value];
        else if (e.kind === 'bytes' && fields[i]) {
          // a valid value with bytes that are no UTF-8 (a CESU-8 surrogate, an overlong form, 0xFF)
          const [name, value] = fields[i]!;
          fields[i] = [name, Buffer.concat([Buffer.from(value), e.bytes])];
        } else if (e.kind === 'many') {
          for (let n = 0; n < e.count; n++) fields.push([`f${n}`, 'x']);
        } else fields.push([e.name, e.value]);
      }
      const parts = files.map((f) => ({ ...f }));
      for (const e of fi) {
        const i = parts.length ? e.at % parts.length : 0;
        if (e.kind === 'drop') parts.splice(i, 1);
        else if (e.kind === 'data' && parts[i]) parts[i] = { ...parts[i]!, data: e.data, type: e.type };
        else parts.push({ field: e.field, filename: 'f.png', type: e.type, data: e.data });
      }
      const plain = boundary.replace(/"/g, '');
      let body = multipartBytes(fields, parts, plain);
      let type = `multipart/form-data; boundary=${boundary}`;
      if (broken === 'truncate') body = body.subarray(0, cut % Math.max(1, body.length));
      if (broken === 'no-end') body = body.subarray(0, body.length - plain.length - 6);
      if (broken === 'wrong-boundary') type = 'multipart/form-data; boundary=other';
      if (broken === 'no-boundary') type = 'multipart/form-data';
      if (broken === 'junk-headers')
        body = Buffer.concat([Buffer.from(`--${plain}\r\nContent-Disposition: nonsense\r\n\r\nx\r\n`), body]);
      if (broken === 'no-crlf')
        body = Buffer.from(body.toString('latin1').replace(/\r\n\r\n/g, '\r\n'), 'latin1');
      return { headers: { 'content-type': type }, body };
    });
}

/** Bytes a UTF-8 decoder must refuse or replace: surrogates encoded (CESU-8), overlong, stray. */
const badUtf8 = fc.constantFrom(
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xed, 0xbf, 0xbf]),
  Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xe2, 0x82]),
);

/** How big a generated field or file is: mostly small, sometimes past a field's or the body's limit. */
const partSize = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 64 }) },
  { weight: 2, arbitrary: fc.integer({ min: 60 * 1024, max: 200 * 1024 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1024 * 1024, max: 3 * 1024 * 1024 }) },
  { weight: 1, arbitrary: fc.integer({ min: 10 * 1024 * 1024, max: 45 * 1024 * 1024 }) },
);

/**
 * An oversized or crowded multipart form, generated while it is sent: up to 80 text fields and a
 * few files of up to 45 MB each (hundreds of MB in all at most), named like the route's own fields
 * or not. The API must refuse it with a 4xx in the error shape, without its memory growing.
 */
export function oversizedForm(template: unknown, fileFields: string[] = []): fc.Arbitrary<GeneratedPart[]> {
  const names = [...formFields(template).map(([n]) => n), 'pad', 'metadata[x]'];
  return fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...names), partSize), { minLength: 1, maxLength: 80 }),
      fc.array(fc.tuple(fc.constantFrom(...fileFields, 'file'), partSize), { maxLength: 4 }),
    )
    .map(([fields, files]) => [
      ...fields.map(([name, bytes], i) => ({
        name: i === 0 ? name : `${name}${i % 3 === 0 ? '' : i}`,
        bytes,
      })),
      ...files.map(([name, bytes], i) => ({ name, bytes, filename: `f${i}.png` })),
    ]);
}
