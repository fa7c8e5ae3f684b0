import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../test/render';
import { WebhooksPage } from './Webhooks';

beforeEach(() => {
  window.localStorage.clear();
});

function newAccount() {
  fakeApi((_method, path) => {
    if (path === '/console/api/webhooks/endpoints')
      return { status: 200, body: { object: 'list', data: [] } };
    if (path === '/console/api/webhooks/secret')
      return {
        status: 200,
        body: { secret: 'whsec_x', created_at: 1, rotated_at: null, previous_secret_expires_at: null },
      };
    if (path === '/console/api/webhooks/settings')
      return { status: 200, body: { events: ['video.succeeded'], video_processing: false } };
    return { status: 404 };
  });
  renderAt('/console/webhooks', [{ path: '/console/webhooks', element: <WebhooksPage /> }]);
}

describe('the webhooks page of an account without endpoints', () => {
  it('says what callbacks are for and how to get them (metadata.callback_url)', async () => {
    window.localStorage.setItem('mediagate.lang', 'en');
    newAccount();
    const empty = await screen.findByTestId('endpoints-empty');
    expect(empty.textContent).toContain('Callbacks tell your server when a video task ends');
    expect(empty.textContent).toContain('callback_url in the metadata of a video task');
    expect(empty.textContent).toContain(
      '"metadata": { "callback_url": "https://example.com/hooks/mediagate" }',
    );
    expect(screen.queryByText(/No endpoint has failed/)).toBeNull();
  });

  it('says the same in Chinese', async () => {
    window.localStorage.setItem('mediagate.lang', 'zh');
    newAccount();
    const empty = await screen.findByTestId('endpoints-empty');
    expect(empty.textContent).toContain('视频任务结束时，回调会通知你的服务器');
    expect(empty.textContent).toContain('在 metadata 中填写 callback_url');
    expect(empty.textContent).not.toMatch(/\b(the|your|when|task)\b/);
  });
});
