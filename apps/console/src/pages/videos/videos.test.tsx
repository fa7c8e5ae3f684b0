import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../../test/render';
import { VideoDetailPage } from './VideoDetailPage';
import { VideosPage } from './VideosPage';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const task = (id: string, extra: object = {}) => ({
  id,
  task_id: id,
  object: 'video',
  model: 'wan2.6-i2v-flash-5s-720p',
  prompt: 'a paper boat',
  status: 'succeeded',
  progress: 100,
  created_at: 1_800_000_000,
  updated_at: 1_800_000_000,
  completed_at: 1_800_000_000,
  metadata: { input: { img_url: 'https://images.example/boat.png' } },
  video_url: 'https://gw.example/media/x/video.mp4?exp=1&sig=s',
  expires_at: 4_000_000_000,
  media_status: 'stored',
  media_deleted_at: null,
  charged_micro_usd: 250_000,
  refunded_micro_usd: 0,
  api_key: { id: 'key_1', name: 'ci key', prefix: 'sk-abcd...wxyz' },
  ...extra,
});
const list = (data: unknown[]) => ({ status: 200, body: { object: 'list', data, has_more: false } });
const detailAt = (t: object) => {
  fakeApi((_m, path) =>
    path.endsWith('/callbacks')
      ? list([])
      : path.startsWith('/console/api/videos/')
        ? { status: 200, body: t }
        : { status: 404 },
  );
  renderAt('/console/videos/task_X', [{ path: '/console/videos/:taskId', element: <VideoDetailPage /> }]);
};

describe('a video task page', () => {
  it('shows each callback delivery on a phone as one readable cell beside its button', async () => {
    fakeApi((_m, path) =>
      path.endsWith('/callbacks')
        ? list([
            {
              id: 'dlv_1',
              event_type: 'video.succeeded',
              status: 'succeeded',
              attempt_count: 2,
              next_attempt_at: null,
              url: 'https://hooks.example.com/mediagate/video',
              attempts: [],
            },
          ])
        : path.startsWith('/console/api/videos/')
          ? { status: 200, body: task('task_X') }
          : { status: 404 },
    );
    renderAt('/console/videos/task_X', [{ path: '/console/videos/:taskId', element: <VideoDetailPage /> }]);
    // (the test's screen is a phone's: no breakpoint matches)
    const cell = (await screen.findByText('video.succeeded')).closest('td')!;
    expect(within(cell).getByText('Delivered')).toBeTruthy();
    expect(within(cell).getByText('Attempts: 2')).toBeTruthy();
    expect(within(cell).getByText('https://hooks.example.com/mediagate/video')).toBeTruthy();
    const row = cell.closest('tr')!;
    expect(within(row).getByRole('button', { name: 'Send again' })).toBeTruthy();
  });

  it('plays a kept video with download and copy-link buttons, its exact cost and its key', async () => {
    detailAt(task('task_X', { charged_micro_usd: 1_250_000, refunded_micro_usd: 125_000 }));
    await screen.findByTestId('video-player');
    const download = screen.getByRole('link', { name: /Download/ }) as HTMLAnchorElement;
    expect(download.href).toBe('https://gw.example/media/x/video.mp4?exp=1&sig=s&download=1');
    expect(screen.getByRole('button', { name: /Copy link/ })).toBeTruthy();
    expect(screen.getByTestId('task-cost').textContent).toBe('$1.125');
    expect(screen.getByText('Charged $1.25, $0.125 given back')).toBeTruthy();
    expect(screen.getByText('ci key (sk-abcd...wxyz)')).toBeTruthy();
    // a third party's image is loaded when asked, not on opening the page
    expect(screen.queryByTestId('input-image')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Show the image' }));
    expect((screen.getByTestId('input-image') as HTMLImageElement).src).toBe(
      'https://images.example/boat.png',
    );
  });

  it.each([
    [
      'deleted',
      { media_status: 'deleted', media_deleted_at: 1_800_000_100, video_url: undefined },
      'Video deleted',
    ],
    [
      'expired',
      { media_status: 'expired', video_url: undefined, expires_at: 1_800_000_100 },
      'Video expired',
    ],
  ])('says the video was %s instead of showing an empty player', async (_s, extra, words) => {
    detailAt(task('task_X', extra));
    await screen.findByTestId('video-gone');
    expect(screen.getAllByText(words).length).toBeGreaterThan(0);
    expect(screen.queryByTestId('video-player')).toBeNull();
    expect(screen.queryByRole('link', { name: /Download/ })).toBeNull();
  });

  it('shows progress and the time left of a running task', async () => {
    detailAt(
      task('task_X', {
        status: 'processing',
        progress: 40,
        video_url: undefined,
        media_status: null,
        estimated_completion_at: Math.floor(Date.now() / 1000) + 125,
      }),
    );
    expect((await screen.findByTestId('task-eta')).textContent).toMatch(/^about 2 min \d+ s left$/);
    expect(screen.getByRole('progressbar')).toBeTruthy();
  });
});

describe('the video task list', () => {
  it('has no first-frame link until it is stored, and searches by id, key, model and day', async () => {
    const calls = fakeApi((_m, path) =>
      path.startsWith('/console/api/videos')
        ? list([task('task_A', { media_status: 'pending', thumbnail_url: undefined })])
        : path.startsWith('/console/api/tokens')
          ? list([{ id: 'key_1', name: 'ci key', display_prefix: 'sk-abcd...wxyz' }])
          : path.startsWith('/console/api/models')
            ? list([{ id: 'wan2.6-i2v-flash-5s-720p', type: 'video' }])
            : { status: 404 },
    );
    renderAt('/console/videos', [{ path: '/console/videos', element: <VideosPage /> }]);
    expect(await screen.findByRole('img', { name: 'No preview yet' })).toBeTruthy();
    expect(screen.getByText(/\$0\.25/)).toBeTruthy();
    // on a phone's width (as here) the form waits behind its button: the tasks fill the first screen
    expect(screen.queryByLabelText('Task id')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /Search/, expanded: false }));
    fireEvent.change(screen.getByLabelText('Task id'), { target: { value: 'task_01' } });
    fireEvent.change(screen.getByLabelText('Created from (day)'), { target: { value: '2026-11-01' } });
    fireEvent.click(within(screen.getByRole('search')).getByRole('button', { name: /Search/ }));
    await waitFor(() =>
      expect(
        calls.some((c) => /\/console\/api\/videos\?.*id=task_01.*created_from=2026-11-01/.test(c.path)),
      ).toBe(true),
    );
  });
});
