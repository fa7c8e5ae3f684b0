import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../../test/render';
import { QuickStartPage } from './QuickStart';

beforeEach(() => {
  window.localStorage.setItem('mediagate.lang', 'en');
});

const TOPUP = {
  id: 1,
  kind: 'topup',
  amount_usd: 7,
  amount_micro_usd: 7_000_000,
  reason: 'Top-up',
  reference: 'alipay:top_1',
  created_at: 1_800_000_000,
};

const VIDEO = {
  object: 'model',
  id: 'wan2.6-i2v-flash-5s-720p',
  type: 'video',
  unit: 'task',
  endpoints: [],
  price_usd: 0.25,
  silent_price_usd: 0.125,
  duration_seconds: 5,
  resolution: '720P',
  sizes: [],
  max_n: 1,
  max_input_images: 1,
  needs_image: true,
};

/** The page over a fake API: a new account's quick start, with `topups` in its ledger ('error': it cannot be read). */
function open(topups: unknown[] | 'error') {
  fakeApi((_method, path) => {
    if (path === '/console/api/quickstart')
      return {
        status: 200,
        body: {
          base_url: 'https://gw.example/v1',
          docs_url: 'https://gw.example/docs',
          test_credit_usd: 0.05,
          connectivity_check: { model: 'seedream-4.0', price_usd: 0.03, calls: 1 },
          cheapest_video_usd: 0.125,
        },
      };
    if (path.startsWith('/console/api/ledger?'))
      return topups === 'error'
        ? {
            status: 503,
            body: { error: { message: 'down', type: 'api_error', code: 'service_unavailable' } },
          }
        : { status: 200, body: { object: 'list', data: topups } };
    if (path === '/console/api/tokens') return { status: 200, body: { object: 'list', data: [] } };
    if (path === '/console/api/models') return { status: 200, body: { object: 'list', data: [VIDEO] } };
    return { status: 404 };
  });
  renderAt('/console/quickstart', [{ path: '/console/quickstart', element: <QuickStartPage /> }]);
}

describe('the quick start', () => {
  it('tells a new account what its test credit covers', async () => {
    open([]);
    await screen.findByText(/Your test credit of \$0\.05 covers 1 image with /);
    await screen.findByText(/The test credit does not cover one: top up first/);
  });

  it('no longer speaks of the test credit once the account has topped up', async () => {
    open([TOPUP]);
    // the video step speaks to an account that has paid (the ledger's answer is in)
    await screen.findByText(
      'Videos are made from an image URL and a prompt; the task runs for a minute or two. Watch the task on the Video tasks page or stream its events.',
    );
    expect(
      screen.getByText('Generates one image with seedream-4.0, the cheapest image model, for $0.03.'),
    ).toBeTruthy();
    expect(screen.queryByTestId('test-credit-covers')).toBeNull();
  });

  it("does not tell the test credit's story when the ledger cannot say there was no top-up", async () => {
    open('error');
    await screen.findByText('Generates one image with seedream-4.0, the cheapest image model, for $0.03.');
    expect(screen.queryByTestId('test-credit-covers')).toBeNull();
    expect(screen.queryByText(/The test credit does not cover one/)).toBeNull();
  });
});
