import { describe, expect, it } from 'vitest';
import { apiError, fakeApi } from '../../test/render';
import { $api, ApiError, api, keyOf } from './client';

describe('the generated client', () => {
  it('rejects a non-2xx answer with its ApiError (code, param, Retry-After), for plain calls and queries', async () => {
    fakeApi(() => ({
      ...apiError(429, 'rate_limit_exceeded', 'Slow down.', 'model'),
      headers: { 'retry-after': '7' },
    }));
    const plain = await api.GET('/console/api/tokens').catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(ApiError);
    expect(plain).toMatchObject({
      status: 429,
      code: 'rate_limit_exceeded',
      param: 'model',
      retryAfterSeconds: 7,
    });
    const { queryKey, queryFn } = $api.queryOptions('get', '/console/api/tokens');
    const viaQuery = await Promise.resolve(
      queryFn({
        queryKey,
        signal: new AbortController().signal,
        meta: undefined,
        client: undefined as never,
      }),
    ).catch((e: unknown) => e);
    expect(viaQuery).toBeInstanceOf(ApiError);
  });

  it('keys a query by its route, so keyOf(route) is the prefix of every query of it', () => {
    const key = $api.queryOptions('get', '/console/api/ledger', {
      params: { query: { kind: 'topup' } },
    }).queryKey;
    expect(key.slice(0, 2)).toEqual([...keyOf('/console/api/ledger')]);
    expect(key[2]).toEqual({ params: { query: { kind: 'topup' } } });
  });
});
