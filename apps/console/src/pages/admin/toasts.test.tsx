import { fireEvent, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiError, fakeApi, renderAt } from '../../../test/render';
import { RetryButton, useRetryTask } from './tasks/components/RetryButton';

beforeEach(() => {
  window.localStorage.clear();
  window.localStorage.setItem('mediagate.lang', 'zh');
});

function Retry() {
  const retry = useRetryTask();
  return <RetryButton task={{ id: 'task_01', status: 'failed' }} retry={retry} />;
}

describe("operators' toasts", () => {
  it("speak the page's language, not the API's English", async () => {
    fakeApi(() => apiError(409, 'conflict', 'This task was already retried as task_02.'));
    renderAt('/admin/tasks', [{ path: '/admin/tasks', element: <Retry /> }]);
    fireEvent.click(screen.getByRole('button', { name: /task_01/ }));
    fireEvent.click(await screen.findByRole('button', { name: /^重\s*试$/ }));
    expect(await screen.findByText('与当前状态冲突。请刷新页面后重试。')).toBeTruthy();
    expect(screen.queryByText(/already retried/)).toBeNull();
  });
});
