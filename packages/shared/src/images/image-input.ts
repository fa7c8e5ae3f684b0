import type { Dimensions, ImageInputRule } from '../catalog/image-models';
import { InvalidInputError } from '../errors';
import { isHttpUrl } from '../http/urls';

/** Image formats both vendors accept as input (the intersection of upstreams.md B and C). */
export const INPUT_IMAGE_TYPES = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  bmp: 'image/bmp',
} as const;
export type InputImageType = keyof typeof INPUT_IMAGE_TYPES;

const ACCEPTED = 'a JPEG, PNG, WebP or BMP image';

/** The format of an image from its first bytes (magic numbers), or undefined when it is none we take. */
export function sniffImageType(head: Buffer): InputImageType | undefined {
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) {
    return 'png';
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (
    head.length >= 12 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'webp';
  }
  if (head.length >= 26 && head.toString('latin1', 0, 2) === 'BM') return 'bmp';
  return undefined;
}

/** Width and height from an image's header, when the header is within `head`. */
export function probeImageSize(head: Buffer, type: InputImageType): Dimensions | undefined {
  switch (type) {
    case 'png':
      return head.length >= 24 ? { width: head.readUInt32BE(16), height: head.readUInt32BE(20) } : undefined;
    case 'bmp':
      return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
    case 'webp':
      return probeWebp(head);
    case 'jpeg':
      return probeJpeg(head);
  }
}

function probeWebp(b: Buffer): Dimensions | undefined {
  if (b.length < 30) return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  return undefined;
}

function probeJpeg(b: Buffer): Dimensions | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}

/** Bytes of the image header read for type and size checks (covers any sane JPEG's SOF). */
const HEAD_BYTES = 96 * 1024;
const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,/i;
/** 1 at the bytes of the base64 alphabet (A-Z, a-z, 0-9, +, /) */
const BASE64_ALPHABET = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') {
  BASE64_ALPHABET[c.charCodeAt(0)] = 1;
}

/** How many characters of a data URL isBase64 copies at a time. */
const BASE64_CHECK_CHARS = 64 * 1024;

/**
 * Whether `s` is base64 as /^[A-Za-z0-9+/]*={0,2}$/ has it (the alphabet, then at most two `=`).
 * It reads the bytes of ASCII copies of 64 KB pieces of `s`, into one buffer: over a 1 MB
 * image's data URL (a slice of the request's string) that regular expression took 7 to 15 ms, a
 * loop over the string's char codes longer still, and this under a millisecond; and checking a
 * 12 MB data URL holds 64 KB, not a 12 MB copy of it until the next collection.
 */
export function isBase64(s: string): boolean {
  // only ASCII has as many UTF-8 bytes as UTF-16 code units; then the latin1 bytes are the chars
  if (Buffer.byteLength(s, 'utf8') !== s.length) return false;
  let end = s.length;
  if (end > 0 && s.charCodeAt(end - 1) === 61) end -= 1;
  if (end > 0 && s.charCodeAt(end - 1) === 61) end -= 1;
  const piece = Buffer.allocUnsafe(Math.min(end, BASE64_CHECK_CHARS));
  for (let from = 0; from < end; from += BASE64_CHECK_CHARS) {
    const n = piece.write(s.slice(from, Math.min(end, from + BASE64_CHECK_CHARS)), 0, 'latin1');
    for (let i = 0; i < n; i++) {
      if (BASE64_ALPHABET[piece[i]!] === 0) return false;
    }
  }
  return true;
}

/** Checks one image's bytes (given by its header and total size) against the model's input rule. */
function checkImage(head: Buffer, bytes: number, rule: ImageInputRule, param: string, declared?: string) {
  const type = sniffImageType(head);
  if (!type) throw new InvalidInputError(`${param} is not ${ACCEPTED}.`, param);
  if (
    declared &&
    declared.toLowerCase() !== INPUT_IMAGE_TYPES[type] &&
    !(type === 'jpeg' && /jpg$/i.test(declared))
  ) {
    throw new InvalidInputError(`${param} says ${declared} but holds ${INPUT_IMAGE_TYPES[type]}.`, param);
  }
  if (bytes > rule.maxBytes) {
    throw new InvalidInputError(
      `${param} is ${bytes} bytes; the limit is ${rule.maxBytes} bytes (${rule.maxBytes / 1024 / 1024} MB).`,
      param,
    );
  }
  const size = probeImageSize(head, type);
  if (!size) return;
  const { width, height } = size;
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  const bad = (why: string) => new InvalidInputError(`${param} is ${width}x${height}: ${why}.`, param);
  if (short < rule.minSide) throw bad(`each side must be at least ${rule.minSide} px`);
  if (rule.maxSide !== undefined && long > rule.maxSide)
    throw bad(`each side must be at most ${rule.maxSide} px`);
  if (rule.maxPixels !== undefined && width * height > rule.maxPixels) {
    throw bad(`at most ${rule.maxPixels} pixels are allowed`);
  }
  if (rule.maxAspectRatio !== undefined && long > short * rule.maxAspectRatio) {
    throw bad(`the aspect ratio must be within 1:${rule.maxAspectRatio} and ${rule.maxAspectRatio}:1`);
  }
}

/**
 * Checks one image reference of a request: an http(s) URL (the vendor fetches it) or a base64 data
 * URL of an accepted format within the model's size, side and ratio rules. Throws a 400 naming
 * `param` otherwise. Reads only the data URL's header bytes, never decodes the whole image.
 */
export function checkImageRef(ref: unknown, rule: ImageInputRule, param: string): string {
  const expected = `${param} must be an http(s) URL or a base64 data URL of ${ACCEPTED}`;
  if (typeof ref !== 'string' || ref.length === 0) throw new InvalidInputError(`${expected}.`, param);
  const match = DATA_URL.exec(ref);
  if (!match) {
    if (ref.length <= 4096 && isHttpUrl(ref)) return ref;
    throw new InvalidInputError(`${expected}.`, param);
  }
  const b64 = ref.slice(match[0].length);
  if (!isBase64(b64)) throw new InvalidInputError(`${param} is not valid base64.`, param);
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  const bytes = Math.floor((b64.length * 3) / 4) - padding;
  const head = Buffer.from(b64.slice(0, Math.ceil(HEAD_BYTES / 3) * 4), 'base64');
  checkImage(head, bytes, rule, param, match[1]);
  return ref;
}

/**
 * An uploaded file as the data URL the vendor takes, after checking that it is an accepted image
 * within the model's rules. Throws a 400 naming `param` for anything else (text, PDF, a huge file).
 */
export function uploadToDataUrl(file: Buffer, rule: ImageInputRule, param: string): string {
  checkImage(file.subarray(0, HEAD_BYTES), file.length, rule, param);
  const type = sniffImageType(file)!;
  return `data:${INPUT_IMAGE_TYPES[type]};base64,${file.toString('base64')}`;
}
