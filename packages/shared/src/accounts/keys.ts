import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids';

export const API_KEY_PATTERN = /^sk-[0-9A-Za-z]{48}$/;

/** A new secret key: `sk-` and 48 random base62 characters. */
export function generateApiKey(): string {
  return `sk-${randomBase62(48)}`;
}

/** The stored form of a key: hex SHA-256. Keys are high-entropy, so a fast hash is enough. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What the owner sees to tell keys apart, never enough to use one. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 7)}...${key.slice(-4)}`;
}
