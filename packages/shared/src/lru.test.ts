import { LruCache } from './lru';

describe('LruCache', () => {
  it('evicts the least recently used entry past its size and expires entries after the TTL', () => {
    let now = 0;
    const c = new LruCache<string, number>(2, 1_000, () => now);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    expect(c.get('c')).toBe(3);
    now = 1_000;
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(1);
  });
});
