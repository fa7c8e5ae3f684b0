import { assertPublicUrl, createSsrfPolicy, SsrfError } from './ssrf';

describe('creation-time DNS answers', () => {
  it('are shared by a burst of checks naming one host, and a refused answer stays refused', async () => {
    let lookups = 0;
    const policy = createSsrfPolicy({
      resolve: async () => {
        lookups += 1;
        await new Promise((r) => setTimeout(r, 20));
        return [{ address: '10.0.0.7', family: 4 }];
      },
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => assertPublicUrl(policy, 'https://internal.example/hook')),
    );
    expect(lookups).toBe(1);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SsrfError);
    }
    await expect(assertPublicUrl(policy, 'https://INTERNAL.example/other')).rejects.toBeInstanceOf(SsrfError);
    expect(lookups).toBe(1);
  });
});
