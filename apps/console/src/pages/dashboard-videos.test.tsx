import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiError, fakeApi, renderAt } from '../../test/render';
import { DashboardPage } from './Dashboard';
import { VideosPage } from './videos/VideosPage';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const list = (data: unknown[]) => ({ status: 200, body: { object: 'list', data, has_more: false } });

const TEST_CREDIT = {
  kind: 'grant',
  reason: 'test credit for a new account',
  details: { cause: 'signup_credit' },
  amount_usd: 0.05,
  amount_micro_usd: 50_000,
};
const TOPUP = { kind: 'topup', reason: null, details: null, amount_usd: 20, amount_micro_usd: 20_000_000 };

/** The dashboard's API, with these ledger entries. */
function dashboardApi(ledger: Array<{ kind: string }>, summary: { status: number; body?: unknown }) {
  return fakeApi((_m, path) => {
    if (path.startsWith('/console/api/balance'))
      return { status: 200, body: { object: 'balance', balance_usd: 0.05, balance_micro_usd: 50_000 } };
    if (path.startsWith('/console/api/ledger')) {
      const kind = new URL(path, 'http://localhost').searchParams.get('kind');
      const entries = ledger
        .filter((e) => kind === null || e.kind === kind)
        .map((e, i) => ({ id: `${i}`, ...e }));
      return { status: 200, body: { ...list(entries).body, next_cursor: null } };
    }
    if (path.startsWith('/console/api/usage/summary')) return summary;
    if (path.startsWith('/console/api/videos')) return list([]);
    return { status: 404 };
  });
}

describe('dashboard', () => {
  it('shows the test-credit notice to an account that never topped up, and the empty states', async () => {
    const calls = dashboardApi([TEST_CREDIT], {
      status: 200,
      body: { object: 'usage_summary', days: 30, data: [] },
    });
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    expect(await screen.findByText('Test credit')).toBeTruthy();
    expect(
      screen.getByText(/came with \$0\.05 of test credit.*not for production or public content delivery/),
    ).toBeTruthy();
    expect(await screen.findByText('No spend in the last 30 days.')).toBeTruthy();
    expect(await screen.findByText('No task is running.')).toBeTruthy();
    expect(calls.some((c) => /\/console\/api\/usage\/summary\?days=30&tz=/.test(c.path))).toBe(true);
  });

  it('draws the spend per day without a charting library, named by its figures, in en and zh', async () => {
    const pad = (n: number) => String(n).padStart(2, '0');
    const day = (back: number) => {
      const d = new Date();
      d.setDate(d.getDate() - back);
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
    };
    const rows = [
      { day: day(1), model: 'wan-2.1', calls: 2, spent_usd: 0.2 },
      { day: day(1), model: 'flux-dev', calls: 1, spent_usd: 0.05 },
      { day: day(0), model: 'flux-dev', calls: 2, spent_usd: 0.1 },
    ];
    for (const [lang, name] of [
      [
        'en',
        'Spend per day and model, last 30 days. Total $0.35; the highest day ' + day(1).slice(5) + ', $0.25.',
      ],
      ['zh', '近 30 天每日各模型消费。合计 $0.35；最高为 ' + day(1).slice(5) + '，$0.25。'],
    ] as const) {
      window.localStorage.setItem('mediagate.lang', lang);
      dashboardApi([TOPUP], { status: 200, body: { object: 'usage_summary', days: 30, data: rows } });
      const { unmount } = renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
      const chart = await screen.findByRole('img', { name });
      // a stacked bar per model and day, each with its figure as a tooltip; no canvas drawn
      const titles = Array.from(chart.querySelectorAll('rect > title')).map((e) => e.textContent);
      expect(titles).toEqual([
        `${day(1).slice(5)} · wan-2.1: $0.20`,
        `${day(1).slice(5)} · flux-dev: $0.05`,
        `${day(0).slice(5)} · flux-dev: $0.10`,
      ]);
      expect(document.querySelector('canvas')).toBeNull();
      // the value axis in round steps up to the highest day
      expect(screen.getByTestId('spend-chart').textContent).toMatch(
        /^\$0\.00\$0\.05\$0\.10\$0\.15\$0\.20\$0\.25/,
      );
      // the figures as text: the table under the chart
      const table = screen.getByRole('table');
      expect(within(table).getByText('wan-2.1')).toBeTruthy();
      expect(within(table).getByText('$0.15')).toBeTruthy();
      unmount();
    }
  });

  it('hides the notice after a top-up, and shows a failed summary in words', async () => {
    dashboardApi(
      [TEST_CREDIT, TOPUP],
      apiError(500, 'server_error', 'The summary failed (request id req_1).'),
    );
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    // in the figure and in the chart's card
    expect(await screen.findAllByText(/^Something failed on our side/)).toHaveLength(2);
    fireEvent.click(screen.getAllByText('Details')[0]!);
    expect(screen.getByText(/The summary failed \(request id req_1\)\./)).toBeTruthy();
    expect(screen.queryByText('Test credit')).toBeNull();
  });

  it('shows a figure that could not be read as such, never as 0', async () => {
    fakeApi((_m, path) => {
      if (path.startsWith('/console/api/balance')) return apiError(503, 'service_unavailable', 'away');
      if (path.startsWith('/console/api/ledger'))
        return { status: 200, body: { ...list([]).body, next_cursor: null } };
      if (path.startsWith('/console/api/usage/summary')) return apiError(503, 'service_unavailable', 'away');
      if (path.startsWith('/console/api/videos')) return apiError(503, 'service_unavailable', 'away');
      return { status: 404 };
    });
    renderAt('/console', [{ path: '/console', element: <DashboardPage /> }]);
    expect(await screen.findByText('Balance: could not be read')).toBeTruthy();
    expect(await screen.findByText('Spent in the last 30 days: could not be read')).toBeTruthy();
    expect(await screen.findByText('Video tasks running: could not be read')).toBeTruthy();
    expect(screen.queryByText('0')).toBeNull();
    expect(screen.queryByText('$0.00')).toBeNull();
    expect(screen.queryByText('No task is running.')).toBeNull();
  });

  it.each([
    ['an operator', []],
    [
      'an account an operator created with a balance',
      [
        {
          kind: 'grant',
          reason: 'operator grant (cli)',
          details: { cause: 'operator_grant' },
          amount_usd: 100,
          amount_micro_usd: 100_000_000,
        },
      ],
    ],
  ])('shows no test-credit notice to %s', async (_who, ledger) => {
    dashboardApi(ledger, { status: 200, body: { object: 'usage_summary', days: 30, data: [] } });
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
      media_status: 'stored',
      media_deleted_at: null,
      charged_micro_usd: 250_000,
      refunded_micro_usd: 0,
      api_key: null,
      ...extra,
    });
    const calls = fakeApi((_m, path) =>
      path.startsWith('/console/api/videos')
        ? list([
            task('task_A', {
              thumbnail_url: 'https://media.example/a.jpg',
              video_url: 'https://media.example/a.mp4',
            }),
            task('task_B', { status: 'processing', progress: 40, media_status: null }),
          ])
        : { status: 404 },
    );
    renderAt('/console/videos?status=succeeded', [{ path: '/console/videos', element: <VideosPage /> }]);
    const img = (await screen.findByAltText('First frame of task_A')) as HTMLImageElement;
    expect(img.src).toBe('https://media.example/a.jpg');
    expect(screen.getAllByRole('img', { name: 'No preview yet' })).toHaveLength(1);
    expect(calls.find((c) => c.path.startsWith('/console/api/videos'))?.path).toMatch(/status=succeeded/);
  });
});
