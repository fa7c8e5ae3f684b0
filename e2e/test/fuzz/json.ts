import fc from 'fast-check';

// JSON documents as trees, so duplicate keys, `__proto__` keys and number texts such as 1e400
// survive serialization; hostile strings and numbers; random documents; mutations of valid bodies.

export type Json =
  | { t: 'raw'; text: string }
  | { t: 'arr'; items: Json[] }
  | { t: 'obj'; entries: Array<[string, Json]> };

export const raw = (text: string): Json => ({ t: 'raw', text });

export function fromValue(v: unknown): Json {
  if (Array.isArray(v)) return { t: 'arr', items: v.map(fromValue) };
  if (v !== null && typeof v === 'object') {
    return { t: 'obj', entries: Object.entries(v).map(([k, x]): [string, Json] => [k, fromValue(x)]) };
  }
  return raw(JSON.stringify(v) ?? 'null');
}

export function toText(j: Json): string {
  switch (j.t) {
    case 'raw':
      return j.text;
    case 'arr':
      return `[${j.items.map(toText).join(',')}]`;
    case 'obj':
      return `{${j.entries.map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`).join(',')}}`;
  }
}

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\t\n\r',
  '\ud800',
  '\udfff',
  '😀',
  '\u202e\u0301',
  '../../../etc/passwd',
  '%00',
  '%s%n%x',
  '$' + '{7*7}{{7*7}}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'null',
  'undefined',
  'true',
  'NaN',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'task_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'key_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  'http://127.0.0.1/x.png',
  'http://[::1]/x',
  'http://169.254.169.254/latest/meta-data',
  'https://93.184.216.34/a.png',
  'https://no-such-host.invalid/a.png',
  'file:///etc/passwd',
  'data:image/png;base64,AAAA',
  'data:image/png;base64,',
  'javascript:alert(1)',
  'https://',
  'http://a b/c',
  'x@example.com',
  ' A@EXAMPLE.COM ',
  'completed',
  '720p',
  '1080P',
  '2K',
  '1024x1024',
  '0x0',
  '99999x99999',
  'auto',
  'b64_json',
  'seedream-4.5',
  'qwen-image-edit',
  'wan2.6-i2v-flash-5s-720p',
  '10.0.0.0/8',
  '::/0',
  '999.1.1.1/40',
];

const hugeString = fc
  .tuple(fc.constantFrom('a', 'é', '😀', '\u0000', ' ', '\\', '"'), fc.integer({ min: 300, max: 100_000 }))
  .map(([c, n]) => c.repeat(n));

/**
 * A UTF-16 code unit that is not half of a pair, or a pair in the wrong order: what `"\ud800"` in
 * JSON produces, which no database or UTF-8 encoder can take as it is.
 */
const unpairedUnit = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdbff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\udc00\ud800', '\ud83d\ud83d', '\ude00\ud83d'),
);

/** `text` with an unpaired code unit inserted at `at` (mod its length + 1), the rest left valid. */
export const withUnpaired = (text: string, unit: string, at: number): string => {
  const i = at % (text.length + 1);
  // never split an existing pair
  const j = i > 0 && /[\ud800-\udbff]/.test(text[i - 1]!) ? i - 1 : i;
  return text.slice(0, j) + unit + text.slice(j);
};

/** A string with unpaired code units somewhere in it. */
export const unpairedString: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 20 }), unpairedUnit, fc.nat())
  .map(([text, unit, at]) => withUnpaired(text, unit, at));

export const weirdString: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: unpairedString },
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 1, arbitrary: hugeString },
);

const RAW_NUMBERS = [
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '1e400',
  '-1e400',
  '1e-400',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.0000001',
  '0.0000001',
  '1E2',
  '2147483648',
  '-2147483649',
  '1e21',
  // past the largest JS date (8.64e15 ms) when read as seconds, yet safe integers
  '8640000000001',
  '9999999999999',
  '253402300800',
  '5',
  '10',
  '15',
  '100',
  '1000000000.5',
];

export const weirdNumber: fc.Arbitrary<Json> = fc.oneof(
  { weight: 1, arbitrary: fc.integer().map((n) => raw(String(n))) },
  {
    weight: 1,
    arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => raw(JSON.stringify(n))),
  },
  { weight: 3, arbitrary: fc.constantFrom(...RAW_NUMBERS).map(raw) },
);

/** `[[[...]]]` or `{"a":{"a":...}}` thousands of levels deep. */
const deepNesting: fc.Arbitrary<Json> = fc
  .tuple(fc.integer({ min: 50, max: 4_000 }), fc.boolean())
  .map(([d, arr]) => raw(arr ? '['.repeat(d) + ']'.repeat(d) : `${'{"a":'.repeat(d)}0${'}'.repeat(d)}`));

const jsonKey = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    '',
    'model',
    'prompt',
    'metadata',
    'input',
    'parameters',
    'name',
    'email',
    'password',
    'amount_usd',
  ),
);

const leaf: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: weirdString.map((s) => raw(JSON.stringify(s))) },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 2, arbitrary: fc.constantFrom('true', 'false', 'null').map(raw) },
  { weight: 1, arbitrary: deepNesting },
);

/** Any JSON document, up to a few levels of random structure. */
export const anyJson: fc.Arbitrary<Json> = fc.letrec<{ value: Json; arr: Json; obj: Json }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, tie('arr'), tie('obj')),
  arr: fc.array(tie('value'), { maxLength: 4 }).map((items): Json => ({ t: 'arr', items })),
  obj: fc
    .array(fc.tuple(jsonKey, tie('value')), { maxLength: 5 })
    .map((entries): Json => ({ t: 'obj', entries })),
})).value;

interface Mutation {
  kind: 'drop' | 'replace' | 'same-type' | 'add' | 'duplicate' | 'wrap' | 'stringify' | 'root' | 'unpaired';
  at: number;
  /** for `unpaired`: the code unit put into a string that stays otherwise valid, and where */
  unit: string;
  pos: number;
  key: string;
  value: Json;
  /** for `same-type`: what replaces a number, and what replaces a string */
  num: Json;
  str: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(
    'drop',
    'replace',
    'same-type',
    'same-type',
    'same-type',
    'add',
    'duplicate',
    'wrap',
    'stringify',
    'root',
    'unpaired',
    'unpaired',
  ),
  unit: unpairedUnit,
  pos: fc.nat(),
  // unbiased: fast-check leans to small numbers, which would mutate the first fields only
  at: fc.noBias(fc.nat()),
  key: jsonKey,
  value: anyJson,
  num: weirdNumber,
  str: weirdString,
});

type Slot = { parent: Json & { t: 'arr' | 'obj' }; index: number };

function slotsOf(j: Json, out: Slot[] = []): Slot[] {
  if (j.t === 'arr') {
    j.items.forEach((child, index) => {
      out.push({ parent: j, index });
      slotsOf(child, out);
    });
  } else if (j.t === 'obj') {
    j.entries.forEach(([, child], index) => {
      out.push({ parent: j, index });
      slotsOf(child, out);
    });
  }
  return out;
}

const getAt = (s: Slot): Json =>
  s.parent.t === 'arr' ? s.parent.items[s.index]! : s.parent.entries[s.index]![1];
function setAt(s: Slot, v: Json): void {
  if (s.parent.t === 'arr') s.parent.items[s.index] = v;
  else s.parent.entries[s.index] = [s.parent.entries[s.index]![0], v];
}

function applyMutation(doc: Json, mutation: Mutation): Json {
  // generated values are reused while shrinking: never edit them in place
  const m = { ...mutation, value: structuredClone(mutation.value) };
  if (m.kind === 'root') return m.at % 2 === 0 ? m.value : { t: 'arr', items: [doc] };
  const slots = slotsOf(doc);
  if (slots.length === 0) return m.value;
  const s = slots[m.at % slots.length]!;
  switch (m.kind) {
    case 'drop':
      if (s.parent.t === 'arr') s.parent.items.splice(s.index, 1);
      else s.parent.entries.splice(s.index, 1);
      break;
    case 'replace':
      setAt(s, m.value);
      break;
    case 'same-type': {
      // a wrong value of the right type gets past type checks to the range checks and beyond
      const old = getAt(s);
      const isString = old.t === 'raw' && old.text.startsWith('"');
      const isNumber = old.t === 'raw' && /^-?\d/.test(old.text);
      setAt(s, isString ? raw(JSON.stringify(m.str)) : isNumber ? m.num : m.value);
      break;
    }
    case 'add':
      if (s.parent.t === 'arr') s.parent.items.push(m.value);
      else s.parent.entries.push([m.key, m.value]);
      break;
    case 'duplicate':
      if (s.parent.t === 'obj') s.parent.entries.push([s.parent.entries[s.index]![0], m.value]);
      break;
    case 'wrap':
      setAt(s, { t: 'arr', items: [getAt(s)] });
      break;
    case 'stringify':
      setAt(s, raw(JSON.stringify(toText(getAt(s)))));
      break;
    case 'unpaired': {
      // a valid value (a URL, a prompt, a key) with one bad code unit: past every other check
      const old = getAt(s);
      if (old.t === 'raw' && old.text.startsWith('"')) {
        setAt(s, raw(JSON.stringify(withUnpaired(JSON.parse(old.text) as string, m.unit, m.pos))));
      } else if (s.parent.t === 'obj') {
        const [key, value] = s.parent.entries[s.index]!;
        s.parent.entries[s.index] = [withUnpaired(key, m.unit, m.pos), value];
      }
      break;
    }
  }
  return doc;
}

/** A valid document, or one with up to three random mutations (drop, replace, add, retype...). */
export function mutatedJson(template: unknown): fc.Arbitrary<Json> {
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
  );
  return mutations.map((ms) => {
    let doc = structuredClone(fromValue(template));
    for (const m of ms) doc = applyMutation(doc, m);
    return doc;
  });
}
