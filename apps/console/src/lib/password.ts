/** Least password length of the API (registration and changes). */
export const MIN_PASSWORD_LENGTH = 8;

export type Strength = 'too_short' | 'weak' | 'fair' | 'good' | 'strong';

const COMMON = [
  'password',
  '12345678',
  '123456789',
  'qwertyui',
  'iloveyou',
  'abc12345',
  'password1',
  '11111111',
  'mediagate',
  'letmein1',
];

/**
 * A quick estimate of a password's strength for feedback while typing (the API only requires 8
 * characters): length and the kinds of characters used, minus repeats, runs and common words.
 */
export function passwordStrength(password: string): { strength: Strength; score: number } {
  if (password.length < MIN_PASSWORD_LENGTH) return { strength: 'too_short', score: 0 };
  const lower = password.toLowerCase();
  if (COMMON.some((c) => lower.includes(c)) || /^(.)\1+$/.test(password)) {
    return { strength: 'weak', score: 1 };
  }
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  let score = kinds + (password.length >= 12 ? 1 : 0) + (password.length >= 16 ? 1 : 0);
  if (/(.)\1\1/.test(password)) score -= 1;
  if (/(0123|1234|2345|3456|4567|5678|6789|abcd|bcde|cdef|qwer|asdf)/i.test(password)) score -= 1;
  const strength: Strength = score <= 1 ? 'weak' : score <= 2 ? 'fair' : score <= 4 ? 'good' : 'strong';
  return { strength, score: Math.max(1, Math.min(score, 6)) };
}
