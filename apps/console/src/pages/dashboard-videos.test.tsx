import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiError, fakeApi, renderAt } from '../../test/render';
import { DashboardPage } from './Dashboard';
import { VideosPage } from './Videos';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const list = (data: unknown[]) => ({ status: 200, body: { object: 'list', data, has_more: false } });

/** The dashboard's API; the ledger holds one entry of each of `kinds`. */
function dashboardApi(kinds: string[], summary: { status: number; body?: unknown }) {
  return fakeApi((_m, path) => {
    if (path.startsWith('/console/api/balance'))
      return { status: 200, body: { object: 'balance', balance_usd: 0.05, balance_micro_usd: 50_000 } };
    if (path.startsWith('/console/api/ledger')) {
      const kind = new URL(path, 'http://localhost').searchParams.get('kind');
      const entries = kinds
        .filter((k) => kind === null || k === kind)
        .map((k, i) => ({ id: `${i}`, kind: k }));
      return { status: 200, body: { ...list(entries).body, next_cursor: null } };
    }
    if (path.startsWith('/console/api/usage/summary')) return summary;
    if (path.startsWith('/console/api/videos')) return list([]);
    return { status: 404 };
  });
}

describe('dashboard', () => {
  it('shows the test-credit notice to an account that never topped up, and the empty states', async () => {
    const calls = dashboardApi(['grant'], {
      status: 200,
      body: { object: 'usage_summary', days: 30, data: [] },
    });
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    expect(await screen.findByText('Test credit')).toBeTruthy();
    expect(screen.getByText(/not for production or public content delivery/)).toBeTruthy();
    expect(await screen.findByText('No spend in the last 30 days.')).toBeTruthy();
    expect(await screen.findByText('No task is running.')).toBeTruthy();
    expect(calls.some((c) => /\/console\/api\/usage\/summary\?days=30&tz=/.test(c.path))).toBe(true);
  });

  it('hides the notice after a top-up, and shows a failed summary in words', async () => {
    dashboardApi(['grant', 'topup'], apiError(500, 'server_error', 'The summary failed (request id req_1).'));
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    expect(await screen.findByText('The summary failed (request id req_1).')).toBeTruthy();
    expect(screen.queryByText('Test credit')).toBeNull();
  });

  it('shows no test-credit notice to an account that never got the test credit (an operator)', async () => {
    dashboardApi([], { status: 200, body: { object: 'usage_summary', days: 30, data: [] } });
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    expect(await screen.findByText('No spend in the last 30 days.')).toBeTruthy();
    expect(await screen.findByText('No task is running.')).toBeTruthy();
    expect(screen.queryByText('Test credit')).toBeNull();
  });
});

describe('video tasks list', () => {
  it('shows the thumbnail when the task has one, a placeholder otherwise, and filters by status', async () => {
    const task = (id: string, extra: object) => ({
      id,
      task_id: id,
      object: 'video',
      model: 'wan2.6-i2v-flash-5s-720p',
      status: 'succeeded',
      progress: 100,
      created_at: 1_800_000_000,
      updated_at: 1_800_000_000,
      completed_at: 1_800_000_000,
      metadata: {},
      ...extra,
    });
    const calls = fakeApi((_m, path) =>
      path.startsWith('/console/api/videos')
        ? list([
            task('task_A', {
              thumbnail_url: 'https://media.example/a.jpg',
              video_url: 'https://media.example/a.mp4',
            }),
            task('task_B', { status: 'processing', progress: 40 }),
          ])
        : { status: 404 },
    );
    renderAt('/console/videos?status=succeeded', [{ path: '/console/videos', element: <VideosPage /> }]);
    const img = (await screen.findByAltText('First frame of task_A')) as HTMLImageElement;
    expect(img.src).toBe('https://media.example/a.jpg');
    expect(screen.getAllByRole('img', { name: 'No preview yet' })).toHaveLength(1);
    expect(calls[0]?.path).toMatch(/status=succeeded/);
  });
});
