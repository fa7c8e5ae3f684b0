import { Algorithm, hash, verify } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

// argon2id with the OWASP-recommended minimum (19 MiB, 2 passes): memory-hard, so a stolen hash
// is expensive to attack on GPUs, and still only tens of milliseconds per login here.
const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** An argon2id PHC string for `password` (salted; two calls give different strings). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether `password` matches the PHC string; false (never a throw) for a malformed hash. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/**
 * Spends the time of one verification against a throwaway hash, so a login for an unknown
 * e-mail takes as long as one with a wrong password and the timing does not reveal accounts.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password-0');
  await verifyPassword(await dummyHash, password);
}

let common: Set<string> | undefined;
/**
 * Whether `password` (ignoring case) is in the list of about 49,000 most common passwords from
 * leaked password sets that zxcvbn-ts ships (`password`, `12345678`, `qwertyuiop`...): the first
 * ones an attacker tries.
 */
export function isCommonPassword(password: string): boolean {
  common ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}
