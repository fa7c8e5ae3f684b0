import { probeImageSize, sniffImageType } from '@mediagate/shared/images';

/**
 * Width and height of an image given as a base64 data URL, read from its header by the gateway's
 * own reader (JPEG, PNG, WebP, BMP) without decoding the whole image; undefined for other formats or
 * unreadable data. (URLs are never fetched: the sim has no network.)
 */
export function probeDataUrlSize(dataUrl: string): { width: number; height: number } | undefined {
  const comma = dataUrl.indexOf(',');
  if (comma < 0) return undefined;
  // 96 KB of base64 covers the header of any sane JPEG; PNG needs 24 bytes.
  const head = Buffer.from(dataUrl.slice(comma + 1, comma + 1 + 131_072), 'base64');
  const type = sniffImageType(head);
  return type ? probeImageSize(head, type) : undefined;
}
