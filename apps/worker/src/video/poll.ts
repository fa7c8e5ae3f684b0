import type { TaskRow } from '@mediagate/shared/db';
import { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { UpstreamVideoState } from '@mediagate/shared/upstream';
import { usageRefund } from './settle-usage';
import { ended, type PhaseDeps, retry, type Step, wait } from './step';

/**
 * The poll phase of a task running upstream: one query on the channel that accepted it (whatever
 * that channel's health: the task lives there), when the poll scheduler admits it. A running task
 * waits for its next poll; a finished one ends here. Every failed query is retried until the
 * deadline, 4xx included: a 4xx on a query is the gateway's fault (a rotated key, a path), while
 * the paid upstream task may be fine.
 */
export async function pollPhase(
  deps: PhaseDeps,
  row: TaskRow,
  upstreamTaskId: string,
  log: Logger,
): Promise<Step> {
  const channel = row.upstreamChannel ? deps.channels.get(row.upstreamChannel) : undefined;
  if (!channel) {
    log.error({ channel: row.upstreamChannel }, 'task channel missing from configuration');
    return ended(
      await deps.lifecycle.fail(row.id, {
        code: 'upstream_channel_missing',
        message: 'The upstream channel that accepted this task is no longer configured.',
      }),
    );
  }
  const ms = await deps.polls.admit(channel.name);
  if (ms > 0) return wait(ms);
  let state: UpstreamVideoState;
  try {
    state = await deps.client.query(channel, upstreamTaskId);
    deps.channels.succeeded(channel.name);
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    deps.channels.failed(channel.name, err);
    return retry(err);
  }
  return answered(deps, row, channel.name, state, log);
}

/** What the upstream's answer means for the task. */
async function answered(
  deps: PhaseDeps,
  row: TaskRow,
  channel: string,
  state: UpstreamVideoState,
  log: Logger,
): Promise<Step> {
  switch (state.status) {
    case 'PENDING':
    case 'RUNNING': {
      const progress = state.status === 'RUNNING' ? 50 : 5;
      await deps.lifecycle.progress(row, progress);
      return wait(await deps.polls.next(row, channel), true);
    }
    case 'SUCCEEDED': {
      deps.polls.finished(row, state);
      if (!state.videoUrl) {
        return ended(
          await deps.lifecycle.fail(row.id, {
            code: 'upstream_no_video',
            message: 'The upstream reported success without a video.',
          }),
        );
      }
      const result = { videoUrl: state.videoUrl, usage: state.usage };
      const made = await deps.lifecycle.succeed(
        row,
        result,
        usageRefund(deps.catalog, row, state.usage, log),
      );
      log.info('task succeeded');
      return ended(made);
    }
    default: {
      const code = state.code ?? `upstream_${state.status.toLowerCase()}`;
      const message =
        state.message ??
        (state.status === 'UNKNOWN'
          ? 'The upstream no longer knows this task.'
          : `The upstream task ended ${state.status}.`);
      log.warn({ code, upstreamStatus: state.status }, 'task failed upstream');
      return ended(await deps.lifecycle.fail(row.id, { code, message }));
    }
  }
}
