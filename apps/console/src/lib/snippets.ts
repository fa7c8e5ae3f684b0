/** The languages a request is shown in, each ready to paste (the key comes from the environment). */
export type SnippetLang = 'curl' | 'node' | 'python';
export const SNIPPET_LANGS: readonly SnippetLang[] = ['curl', 'node', 'python'];

/** The environment variable every snippet reads the key from: never written into the code. */
export const KEY_VARIABLE = 'MEDIAGATE_API_KEY';

/** A call the quick start and the playground show: what it sends, in the API's own words. */
export type SnippetCall =
  | { kind: 'models' }
  | { kind: 'image'; model: string; prompt: string }
  | { kind: 'video'; model: string; prompt: string; imageUrl: string };

const json = (v: unknown) => JSON.stringify(v);
/** A string as a single-quoted shell word. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A string as a Python literal (JSON's escapes are Python's for these strings). */
const py = (s: string) => JSON.stringify(s);

function body(call: SnippetCall): Record<string, unknown> | undefined {
  if (call.kind === 'image') return { model: call.model, prompt: call.prompt };
  if (call.kind === 'video')
    return { model: call.model, prompt: call.prompt, metadata: { input: { img_url: call.imageUrl } } };
  return undefined;
}

const PATHS = { models: '/models', image: '/images/generations', video: '/videos' } as const;

/** The call as a command or program to paste, against `baseUrl` (…/v1). */
export function snippet(lang: SnippetLang, call: SnippetCall, baseUrl: string): string {
  const b = body(call);
  if (lang === 'curl') {
    const lines = [`curl ${baseUrl}${PATHS[call.kind]}`, `  -H "Authorization: Bearer $${KEY_VARIABLE}"`];
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
        `const image = await client.images.generate({ model: ${json(call.model)}, prompt: ${json(call.prompt)} });`,
        'console.log(image.data[0].url);',
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
      `image = client.images.generate(model=${py(call.model)}, prompt=${py(call.prompt)})`,
      'print(image.data[0].url)',
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
