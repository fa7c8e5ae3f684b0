/** The languages a request is shown in, each ready to paste (the key comes from the environment). */
export type SnippetLang = 'curl' | 'node' | 'python';
export const SNIPPET_LANGS: readonly SnippetLang[] = ['curl', 'node', 'python'];

/** The environment variable every snippet reads the key from: never written into the code. */
export const KEY_VARIABLE = 'MEDIAGATE_API_KEY';

/** A call the quick start and the playground show: what it sends, in the API's own words. */
export type SnippetCall =
  | { kind: 'models' }
  | { kind: 'image'; model: string; prompt: string; n?: number; size?: string }
  /** an edit of a local file, sent as the multipart form the `openai` client sends */
  | { kind: 'image-edit'; model: string; prompt: string; n?: number; size?: string; fileName: string }
  | { kind: 'video'; model: string; prompt: string; imageUrl: string };

const json = (v: unknown) => JSON.stringify(v);
/** A string as a single-quoted shell word. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A string as a Python literal (JSON's escapes are Python's for these strings). */
const py = (s: string) => JSON.stringify(s);

/** What an image call sends besides model and prompt: n and size, only when not the defaults. */
const imageOptions = (call: { n?: number; size?: string }) => ({
  ...(call.n !== undefined && call.n !== 1 ? { n: call.n } : {}),
  ...(call.size ? { size: call.size } : {}),
});

function body(call: SnippetCall): Record<string, unknown> | undefined {
  if (call.kind === 'image' || call.kind === 'image-edit')
    return { model: call.model, prompt: call.prompt, ...imageOptions(call) };
  if (call.kind === 'video')
    return { model: call.model, prompt: call.prompt, metadata: { input: { img_url: call.imageUrl } } };
  return undefined;
}

const PATHS = {
  models: '/models',
  image: '/images/generations',
  'image-edit': '/images/edits',
  video: '/videos',
} as const;

/** Node arguments `{ model: ..., prompt: ..., n: 2 }` from the fields of a body. */
const nodeArgs = (b: Record<string, unknown>) =>
  Object.entries(b)
    .map(([k, v]) => `${k}: ${json(v)}`)
    .join(', ');
/** Python keyword arguments `model="...", n=2` from the fields of a body. */
const pyArgs = (b: Record<string, unknown>) =>
  Object.entries(b)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? py(v) : String(v)}`)
    .join(', ');

/** The call as a command or program to paste, against `baseUrl` (…/v1). */
export function snippet(lang: SnippetLang, call: SnippetCall, baseUrl: string): string {
  const b = body(call);
  if (lang === 'curl') {
    const lines = [`curl ${baseUrl}${PATHS[call.kind]}`, `  -H "Authorization: Bearer $${KEY_VARIABLE}"`];
    if (call.kind === 'image-edit' && b) {
      lines.push(`  -F ${shellQuote(`image=@${call.fileName}`)}`);
      for (const [k, v] of Object.entries(b)) lines.push(`  -F ${shellQuote(`${k}=${String(v)}`)}`);
      return lines.join(' \\\n');
    }
    if (b) lines.push(`  -H "Content-Type: application/json"`, `  -d ${shellQuote(json(b))}`);
    return lines.join(' \\\n');
  }
  if (lang === 'node') {
    const head = [
      `import OpenAI from 'openai';`,
      '',
      `const client = new OpenAI({ baseURL: ${json(baseUrl)}, apiKey: process.env.${KEY_VARIABLE} });`,
      '',
    ];
    if (call.kind === 'models')
      return [
        ...head,
        'const models = await client.models.list();',
        'console.log(models.data.map((m) => m.id));',
      ].join('\n');
    if (call.kind === 'image')
      return [
        ...head,
        `const image = await client.images.generate({ ${nodeArgs(b ?? {})} });`,
        'for (const d of image.data) console.log(d.url);',
      ].join('\n');
    if (call.kind === 'image-edit')
      return [
        `import fs from 'node:fs';`,
        ...head,
        'const image = await client.images.edit({',
        `  image: fs.createReadStream(${json(call.fileName)}),`,
        `  ${nodeArgs(b ?? {})},`,
        '});',
        'for (const d of image.data) console.log(d.url);',
      ].join('\n');
    return [
      ...head,
      'const video = await client.videos.create({',
      `  model: ${json(call.model)},`,
      `  prompt: ${json(call.prompt)},`,
      `  metadata: { input: { img_url: ${json(call.imageUrl)} } },`,
      '});',
      'console.log(video.id, video.status);',
    ].join('\n');
  }
  const head = [
    'import os',
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url=${py(baseUrl)}, api_key=os.environ[${py(KEY_VARIABLE)}])`,
    '',
  ];
  if (call.kind === 'models') return [...head, 'print([m.id for m in client.models.list()])'].join('\n');
  if (call.kind === 'image')
    return [
      ...head,
      `image = client.images.generate(${pyArgs(b ?? {})})`,
      'for d in image.data:',
      '    print(d.url)',
    ].join('\n');
  if (call.kind === 'image-edit')
    return [
      ...head,
      `with open(${py(call.fileName)}, "rb") as f:`,
      `    image = client.images.edit(image=f, ${pyArgs(b ?? {})})`,
      'for d in image.data:',
      '    print(d.url)',
    ].join('\n');
  return [
    ...head,
    'video = client.videos.create(',
    `    model=${py(call.model)},`,
    `    prompt=${py(call.prompt)},`,
    `    extra_body={"metadata": {"input": {"img_url": ${py(call.imageUrl)}}}},`,
    ')',
    'print(video.id, video.status)',
  ].join('\n');
}
