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
