import { MediaTypeError } from './storage';

/**
 * Checks by its first bytes that a file is an ISO base media file (MP4/MOV family): a box of type
 * `ftyp` first. Throws MediaTypeError otherwise, whatever the server's Content-Type said.
 */
export function assertMp4(head: Buffer): void {
  if (head.length < 12 || head.toString('latin1', 4, 8) !== 'ftyp') {
    throw new MediaTypeError('the file is not an MP4 video (no ftyp box at its start)');
  }
}

/** The still-image types an upload may be, by the MIME type each is served with. */
export const STILL_IMAGE_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
export type StillImageType = keyof typeof STILL_IMAGE_TYPES;

/** The type of a PNG, JPEG or WebP image by its first bytes (at least 12), or undefined for anything else. */
export function stillImageType(head: Buffer): StillImageType | undefined {
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
  return undefined;
}
