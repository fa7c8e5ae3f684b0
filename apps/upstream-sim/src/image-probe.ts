/**
 * Width and height of a PNG or JPEG given as a base64 data URL, read from its header without decoding
 * the whole image; undefined for other formats or unreadable data. (URLs are never fetched: the sim
 * has no network.)
 */
export function probeDataUrlSize(dataUrl: string): { width: number; height: number } | undefined {
  const comma = dataUrl.indexOf(',');
  if (comma < 0) return undefined;
  // 96 KB of base64 covers the header of any sane JPEG; PNG needs 24 bytes.
  const head = Buffer.from(dataUrl.slice(comma + 1, comma + 1 + 131_072), 'base64');
  return probePng(head) ?? probeJpeg(head);
}

function probePng(b: Buffer): { width: number; height: number } | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.toString('latin1', 12, 16) !== 'IHDR')
    return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function probeJpeg(b: Buffer): { width: number; height: number } | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    // SOF0..SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}
