// Prints the size of what a browser loads for the first page (the entry chunk and every chunk it
// imports statically, with their CSS), raw and gzipped, from the build's manifest.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = path.join(import.meta.dirname, '..', 'dist');
const manifest = JSON.parse(readFileSync(path.join(dist, '.vite', 'manifest.json'), 'utf8'));
const seen = new Set();
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  for (const dep of manifest[key].imports ?? []) visit(dep);
};
visit('index.html');
const files = new Set([...seen].flatMap((k) => [manifest[k].file, ...(manifest[k].css ?? [])]));
files.add('index.html');
let raw = 0;
let gz = 0;
for (const f of files) {
  const bytes = readFileSync(path.join(dist, f));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`first page: ${files.size} files, ${kb(raw)} raw, ${kb(gz)} gzip`);
