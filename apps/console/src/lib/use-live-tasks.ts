import { type Query, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { $api, keyOf } from '../api/client';

/** One task's query key (its page). */
const videoKey = (taskId: string) =>
  $api.queryOptions('get', '/console/api/videos/{taskId}', { params: { path: { taskId } } }).queryKey;

/** The smallest wait between two refreshes a burst of moves causes (progress comes in steps). */
const BURST_MS = 150;
/** After the stream fails for good (401, 429, 503), how long before the page opens it again. */
const REOPEN_MS = 10_000;

/**
 * Follows the account's task moves over GET /console/api/videos/events (the console session) and
 * refreshes the task lists and the moved task at once, so the pages show a change within a second.
 * Returns whether the stream is open: the pages poll slowly only while it is not.
 */
export function useLiveTasks(): boolean {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let burst: ReturnType<typeof setTimeout> | undefined;
    const moved = new Set<string>();
    let all = false;
    const flush = () => {
      burst = undefined;
      // every list of tasks (any status, search or page), the dashboard's running ones included;
      // of the tasks' pages, those read: a task that could not be read (no such task) is not asked again
      const answered = (q: Query) => q.state.status !== 'error';
      void client.invalidateQueries({ queryKey: keyOf('/console/api/videos') });
      if (all) {
        void client.invalidateQueries({
          queryKey: keyOf('/console/api/videos/{taskId}'),
          predicate: answered,
        });
      } else {
        for (const id of moved)
          void client.invalidateQueries({ queryKey: videoKey(id), predicate: answered });
      }
      moved.clear();
      all = false;
    };
    const refresh = (taskId?: string) => {
      if (taskId) moved.add(taskId);
      else all = true;
      burst ??= setTimeout(flush, BURST_MS);
    };
    const connect = () => {
      source = new EventSource('/console/api/videos/events', { withCredentials: true });
      // open: what may have moved before the stream listened is read again
      source.addEventListener('ready', () => {
        setOpen(true);
        refresh();
      });
      source.addEventListener('resync', () => refresh());
      source.addEventListener('task', (e) => {
        try {
          refresh((JSON.parse((e as MessageEvent<string>).data) as { id: string }).id);
        } catch {
          refresh();
        }
      });
      source.onerror = () => {
        setOpen(false);
        // the browser reconnects by itself after a dropped stream; a refusal closes it for good
        if (source?.readyState === EventSource.CLOSED) {
          source = null;
          reopen = setTimeout(connect, REOPEN_MS);
        }
      };
    };
    connect();
    return () => {
      source?.close();
      clearTimeout(reopen);
      clearTimeout(burst);
    };
  }, [client]);
  return open;
}
