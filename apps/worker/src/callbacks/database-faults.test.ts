import { JOB_CATALOG } from '@mediagate/shared/queue';
import { type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { type CallbacksHarness, startCallbacksHarness } from '../../test/callbacks-harness';
import { terminateLockWaiter } from '../../test/harness';

let h: CallbacksHarness;
let rx: Receiver;

beforeAll(async () => {
  h = await startCallbacksHarness();
  rx = await startReceiver();
  h.startDispatcher();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});

describe('a delivery job meeting a database fault of the moment', () => {
  it('records an attempt whose statement was terminated on a later delayed run, even on its last attempt', async () => {
    const { deliveryId } = await h.createDelivery(`${rx.url}/hooks`, { enqueue: false });
    // the test holds the delivery's row, so the record of the attempt waits on its lock until terminated
    const holder = await h.database.pool.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from callback_deliveries where id = $1 for update', [deliveryId]);
      // its last attempt (as after a long outage): an attempt spent on the fault fails it for good
      await h.queue.add(
        'callback.deliver',
        { deliveryId },
        {
          ...JOB_CATALOG['callback.deliver'].options,
          attempts: 1,
          jobId: deliveryId,
          removeOnComplete: false,
        },
      );
      await terminateLockWaiter(h.database.pool, 'the record of the attempt to wait on the row lock');
    } finally {
      await holder.query('rollback');
      holder.release();
    }
    const state = await waitFor(
      async () => {
        const now = await h.queue.getJobState(deliveryId);
        return now === 'completed' || now === 'failed' ? now : null;
      },
      { what: `job ${deliveryId} to finish` },
    );
    expect(state).toBe('completed');
    expect(await h.delivery(deliveryId)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    // the attempt whose record was lost is sent again (at least once), with the same webhook-id
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
  });
});
