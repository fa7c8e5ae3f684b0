// Writes a brotli (.br) and a gzip (.gz) copy next to every text asset of the build, once, at the
// highest levels (the API serves the copy the browser accepts, and the file itself otherwise).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = path.join(import.meta.dirname, '..', 'dist');
const TEXT = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/;
const MIN_BYTES = 1024;

let files = 0;
let raw = 0;
let br = 0;
let gz = 0;
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== '.vite') walk(file);
      continue;
    }
    if (!TEXT.test(name)) continue;
    const bytes = readFileSync(file);
    if (bytes.length < MIN_BYTES) continue;
    const brotli = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
    const gzip = gzipSync(bytes, { level: 9 });
    writeFileSync(`${file}.br`, brotli);
    writeFileSync(`${file}.gz`, gzip);
    files += 1;
    raw += bytes.length;
    br += brotli.length;
    gz += gzip.length;
  }
};
walk(dist);
const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`compressed ${files} assets: ${kb(raw)} raw, ${kb(gz)} gzip, ${kb(br)} brotli`);
