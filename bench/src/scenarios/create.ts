import { defaultCatalog, videoTaskPrice } from '@mediagate/shared/catalog';
import { newTaskId } from '@mediagate/shared/ids';
import { createVideoQueue, enqueueVideoTask } from '@mediagate/shared/queue';
import { createVideoTask } from '@mediagate/shared/tasks';
import { benchEnv, VIDEO_BODY } from '../env';
import { httpLoad, loopLoad } from '../load';
import { type Row, ratioRow } from '../report';

/**
 * Sustained POST /v1/videos at 50 connections, against the ceiling of the same work done bare:
 * the charge-and-insert transaction plus one BullMQ add, from 50 loops in one process, no HTTP.
 */
export async function createScenario(opts: { quick: boolean }): Promise<Row[]> {
  const e = await benchEnv();
  try {
    const api = await e.group.start('api', 'api');
    const url = `http://127.0.0.1:${api.port}/v1/videos`;
    const headers = { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' };
    const seconds = opts.quick ? 5 : 20;
    await httpLoad({ url, method: 'POST', headers, body: VIDEO_BODY, connections: 50, durationSec: 2 });
    const viaApi = await httpLoad({
      url,
      method: 'POST',
      headers,
      body: VIDEO_BODY,
      connections: 50,
      durationSec: seconds,
    });

    const queue = createVideoQueue(e.redis, e.prefix);
    const model = defaultCatalog().video('wan2.6-i2v-flash-5s-720p')!;
    const metadata = JSON.parse(VIDEO_BODY).metadata;
    const bare = await loopLoad(
      async () => {
        const row = await createVideoTask(e.database.db, {
          id: newTaskId(),
          accountId: e.accountId,
          apiKeyId: e.keyId,
          model: model.id,
          prompt: 'a paper boat drifts down a rainy street',
          metadata,
          priceMicroUsd: videoTaskPrice(model, true),
          deadlineAt: new Date(Date.now() + 1_800_000),
        });
        await enqueueVideoTask(queue, { taskId: row.id });
      },
      50,
      seconds * 1000,
    );
    await queue.close();
    const note =
      viaApi.non2xx || viaApi.errors ? `${viaApi.non2xx} non-2xx, ${viaApi.errors} errors` : undefined;
    return [
      ratioRow({
        scenario: 'create',
        metric: 'POST /v1/videos per second',
        value: Math.round(viaApi.rps),
        unit: 'req/s',
        baseline: Math.round(bare.rps),
        baselineLabel: 'bare tx + add',
        target: '>= 0.60',
        higherIsBetter: true,
        minRatio: 0.6,
        note,
      }),
      {
        scenario: 'create',
        metric: 'p50 latency',
        value: viaApi.p50ms,
        unit: 'ms',
        baseline: bare.p50ms,
        baselineLabel: 'bare',
      },
      {
        scenario: 'create',
        metric: 'p99 latency',
        value: viaApi.p99ms,
        unit: 'ms',
        baseline: bare.p99ms,
        baselineLabel: 'bare',
      },
    ];
  } finally {
    await e.close();
  }
}
