import type { Database } from '../db/client';
import { ConcurrencyLimitError } from '../errors';
import { newTaskId } from '../ids';
import { createVideoTask, failTask, startTask, succeedTask } from '../tasks/tasks';
import { openTestDatabase } from '../testing/services';
import { createAccount, getAccount } from './accounts';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('unfinished video task slots', () => {
  it('hold exactly the limit under concurrency and come back with every terminal move', async () => {
    const { accountId, key } = await createAccount(database.db, {
      email: 'slots@example.test',
      initialCreditMicroUsd: 100_000_000,
    });
    const create = () =>
      createVideoTask(database.db, {
        id: newTaskId(),
        accountId,
        apiKeyId: key.id,
        model: 'wan2.6-i2v-flash-5s-720p',
        prompt: 'p',
        metadata: {},
        priceMicroUsd: 1_000,
        deadlineAt: new Date(Date.now() + 60_000),
        maxActiveTasks: 3,
      });
    const results = await Promise.allSettled(Array.from({ length: 10 }, create));
    const made = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(made).toHaveLength(3);
    for (const r of results)
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyLimitError);
    expect((await getAccount(database.db, accountId))!.activeVideoTasks).toBe(3);

    await failTask(database.db, made[0]!.id, { code: 'x', message: 'y' });
    await failTask(database.db, made[0]!.id, { code: 'x', message: 'again' }); // no double release
    await startTask(database.db, made[1]!.id);
    await succeedTask(database.db, made[1]!.id, { videoUrl: 'https://v.example/1.mp4' });
    expect((await getAccount(database.db, accountId))!.activeVideoTasks).toBe(1);
    await expect(create()).resolves.toBeTruthy();
    await expect(create()).resolves.toBeTruthy();
    await expect(create()).rejects.toBeInstanceOf(ConcurrencyLimitError);
  });
});
