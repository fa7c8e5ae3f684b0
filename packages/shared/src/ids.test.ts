import { decodeTime, isValid } from 'ulid';
import { newTaskId, newUlid, pooledRandom } from './ids';
import { newDeliveryId } from './webhooks/outbox';

describe('ids', () => {
  it('are valid ULIDs, unique, in creation order, and carry the creation time', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => newUlid());
    expect(ids.every((id) => isValid(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(decodeTime(ids[0]!)).toBeGreaterThanOrEqual(before);
    expect(newTaskId()).toMatch(/^task_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newDeliveryId()).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('draw their randomness uniformly from the pooled CSPRNG bytes', () => {
    const buckets = new Array<number>(32).fill(0);
    const draws = 100_000;
    let outside = 0;
    for (let i = 0; i < draws; i += 1) {
      const x = pooledRandom();
      if (!(x >= 0 && x < 1)) outside += 1;
      else buckets[Math.floor(x * 32)]! += 1;
    }
    expect(outside).toBe(0);
    // 3,125 expected per bucket, standard deviation about 55: 10% off is over 5 deviations
    for (const n of buckets) expect(Math.abs(n - draws / 32)).toBeLessThan(draws / 320);
  });
});
