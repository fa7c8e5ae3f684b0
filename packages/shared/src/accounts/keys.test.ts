import { API_KEY_PATTERN, displayPrefix, generateApiKey, hashApiKey } from './keys';

describe('API keys', () => {
  it('are sk- plus 48 base62 characters, distinct, hashed to 64 hex chars', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(API_KEY_PATTERN);
    const [k] = keys;
    expect(hashApiKey(k!)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(k!)).toHaveLength(14);
    expect(k!.includes(displayPrefix(k!).slice(3, 7))).toBe(true);
  });
});
