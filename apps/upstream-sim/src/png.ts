import { constants, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * A valid 8-bit RGB PNG of `width` x `height`: a horizontal gradient. Only the first row carries
 * pixels; every other row uses the PNG "Up" filter with zero deltas (a copy of the row above), so
 * the data is a run of zeros that zlib's RLE strategy compresses in tens of milliseconds even at
 * 4096x4096.
 */
export function encodePng(width: number, height: number): Buffer {
  const stride = 1 + 3 * width;
  const raw = Buffer.alloc(stride * height);
  for (let x = 0; x < width; x++) {
    const o = 1 + 3 * x;
    raw[o] = Math.floor((x * 255) / Math.max(1, width - 1));
    raw[o + 1] = 96;
    raw[o + 2] = 192;
  }
  for (let y = 1; y < height; y++) raw[y * stride] = 2;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const idat = deflateSync(raw, { level: 6, strategy: constants.Z_RLE });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** Encoded PNGs by size, least recently used dropped first, so each size is encoded once. */
export class PngCache {
  private readonly entries = new Map<string, Buffer>();

  constructor(private readonly capacity = 32) {}

  get(width: number, height: number): Buffer {
    const key = `${width}x${height}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const png = encodePng(width, height);
    this.entries.set(key, png);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return png;
  }
}
