import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, renderAt } from '../../../../test/render';
import { Deliveries } from './components/Deliveries';

describe("an operator's view of a task's callback deliveries", () => {
  it('shows each delivery on a phone as one readable cell, not a table that scrolls sideways', async () => {
    fakeApi((_m, path) =>
      path === '/admin/api/tasks/task_X/callbacks'
        ? {
            status: 200,
            body: {
              object: 'list',
              data: [
                {
                  id: 'dlv_1',
                  object: 'video.callback',
                  task_id: 'task_X',
                  event_type: 'video.failed',
                  url: 'https://hooks.example.com/mediagate/video',
                  status: 'failed',
                  attempt_count: 3,
                  attempts: [],
                },
              ],
            },
          }
        : { status: 404 },
    );
    renderAt('/admin/tasks/task_X', [
      { path: '/admin/tasks/:taskId', element: <Deliveries taskId="task_X" refetchInterval={false} /> },
    ]);
    // (the test's screen is a phone's: no breakpoint matches)
    const cell = (await screen.findByText('video.failed')).closest('td')!;
    expect(within(cell).getByText('Failed')).toBeTruthy();
    expect(within(cell).getByText('Attempts: 3')).toBeTruthy();
    expect(within(cell).getByText('https://hooks.example.com/mediagate/video')).toBeTruthy();
    expect(cell.closest('tr')!.querySelectorAll('td:not(.ant-table-row-expand-icon-cell)')).toHaveLength(1);
  });
});
