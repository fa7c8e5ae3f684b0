import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * The ULIDs' randomness: bytes from the system CSPRNG, drawn 4 KiB at a time rather than one
 * call per character (16 per id), which showed in the worker's profile. Each byte / 256 is a
 * uniform fraction in [0, 1), so each of the 32 characters is equally likely.
 */
const pool = { bytes: Buffer.alloc(0), at: 0 };
export function pooledRandom(): number {
  if (pool.at >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.at = 0;
  }
  return pool.bytes[pool.at++]! / 256;
}

// Monotonic: ids made by one process in the same millisecond still sort in creation order.
const ulid = monotonicFactory(pooledRandom);

/** A ULID: 26 characters, unique, sortable by creation time. */
export function newUlid(): string {
  return ulid();
}

/** Task ids are `task_` + a ULID: unique and sortable by creation time, so lists page by key. */
export function newTaskId(): string {
  return `task_${ulid()}`;
}

/** Image calls are `img_` + a ULID: the ledger ref of the call's charge and of its refund. */
export function newImageCallId(): string {
  return `img_${ulid()}`;
}

export function newAccountId(): string {
  return `acct_${ulid()}`;
}

export function newKeyId(): string {
  return `key_${ulid()}`;
}

export function newSessionId(): string {
  return `sess_${ulid()}`;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from base62 (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const TASK_ID_PATTERN = /^task_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Top-up orders are `top_` + a ULID: the merchant order number sent to the payment provider. */
export function newTopUpOrderId(): string {
  return `top_${ulid()}`;
}

/** Top-up refunds are `rfd_` + a ULID: an operator's refund sends it as the merchant refund number. */
export function newTopUpRefundId(): string {
  return `rfd_${ulid()}`;
}
