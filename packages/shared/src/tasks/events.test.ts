import type { TaskRow } from '../db/schema';
import { summarize } from './durations';
import { decodeTaskEvent, encodeTaskEvent, estimatedCompletionAt, taskEventId, taskEventOf } from './events';

const row = (patch: Partial<TaskRow> = {}): TaskRow =>
  ({
    id: 'task_1',
    accountId: 'acct_1',
    apiKeyId: 'key_1',
    model: 'wan2.6-i2v-flash-5s-720p',
    status: 'processing',
    progress: 50,
    prompt: 'p',
    metadata: {},
    priceMicroUsd: 1,
    requestId: null,
    upstreamChannel: 'c',
    upstreamTaskId: 'u',
    submitStartedAt: new Date(1_000_000),
    videoUrl: null,
    errorCode: null,
    errorMessage: null,
    usage: null,
    deadlineAt: new Date(9_000_000),
    createdAt: new Date(1_000_000),
    updatedAt: new Date(1_000_000),
    startedAt: new Date(1_000_000),
    completedAt: null,
    ...patch,
  }) as TaskRow;

/** 30 to 180 s, evenly */
const spread = () => {
  const hash: Record<string, string> = {};
  for (let s = 30; s < 180; s++) hash[`b${s}`] = '1';
  return summarize(hash, 1_000);
};

describe('task events', () => {
  it('numbers states so that later states have larger ids', () => {
    const ids = [
      taskEventId({ status: 'pending', progress: 0 }),
      taskEventId({ status: 'processing', progress: 5 }),
      taskEventId({ status: 'processing', progress: 50 }),
      taskEventId({ status: 'succeeded', progress: 100 }),
    ];
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
  });

  it('round-trips through the wire format', () => {
    const e = taskEventOf(row());
    expect(decodeTaskEvent(encodeTaskEvent(e))).toEqual(e);
    expect(decodeTaskEvent('garbage')).toBeNull();
    expect(decodeTaskEvent('a\nb\nnot-a-number\n{}')).toBeNull();
  });

  it('estimates completion from the learned durations, later as the task runs long', () => {
    const d = spread();
    expect(estimatedCompletionAt(row(), null, 1_000_000)).toBeNull();
    // just submitted: the median, about 105 s
    const fresh = estimatedCompletionAt(row(), d, 1_000_000)!;
    expect(fresh).toBeGreaterThanOrEqual(1_000 + 100);
    expect(fresh).toBeLessThanOrEqual(1_000 + 110);
    // 150 s in: the median of what is left (150-180 s), about 165 s
    const late = estimatedCompletionAt(row(), d, 1_150_000)!;
    expect(late).toBeGreaterThanOrEqual(1_000 + 160);
    expect(late).toBeLessThanOrEqual(1_000 + 170);
    // beyond every learned duration: soon, never in the past
    expect(estimatedCompletionAt(row(), d, 2_000_000)).toBeGreaterThanOrEqual(2_000);
    // a pending task counts from now
    expect(
      estimatedCompletionAt(row({ status: 'pending', submitStartedAt: null }), d, 5_000_000),
    ).toBeGreaterThan(5_000 + 100);
  });

  it('puts the estimate in unfinished task objects only', () => {
    expect(JSON.parse(taskEventOf(row(), spread()).json).estimated_completion_at).toEqual(expect.any(Number));
    expect(JSON.parse(taskEventOf(row(), null).json).estimated_completion_at).toBeNull();
    const done = JSON.parse(
      taskEventOf(row({ status: 'succeeded', progress: 100, videoUrl: 'https://v' }), spread()).json,
    );
    expect(done).not.toHaveProperty('estimated_completion_at');
  });
});
