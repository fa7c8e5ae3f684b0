import type { Logger } from '@mediagate/shared/log';
import { createRedis, queueKeyPrefix } from '@mediagate/shared/queue';
import { type Processor, type Telemetry, Worker } from 'bullmq';
import type { WorkerConfig } from './config';

export interface QueueWorkerOptions {
  config: Pick<WorkerConfig, 'REDIS_URL' | 'REDIS_CLUSTER' | 'QUEUE_PREFIX'>;
  logger: Logger;
  /** how the logs name the jobs (`video`, `callback`, `media copy`) */
  label: string;
  /** the log field the job id goes in (`taskId`, `deliveryId`, `jobId`) */
  idField: string;
  concurrency: number;
  /** how long a job's lock lasts; a stalled job is looked for at the same interval */
  lockDurationMs: number;
  telemetry?: Telemetry;
}

export interface QueueWorker {
  worker: Worker;
  /** stops taking jobs, waits for the running ones (unless `force`) and closes the connection */
  close(force?: boolean): Promise<void>;
}

/** A BullMQ worker for `queue` on a connection of its own, its failures logged. */
export function startQueueWorker(queue: string, processor: Processor, opts: QueueWorkerOptions): QueueWorker {
  const { config, logger, label, idField } = opts;
  const connection = createRedis(config.REDIS_URL, 'worker', { cluster: config.REDIS_CLUSTER });
  const worker = new Worker(queue, processor, {
    connection,
    prefix: queueKeyPrefix(config.QUEUE_PREFIX, queue),
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.lockDurationMs,
    ...(opts.telemetry ? { telemetry: opts.telemetry } : {}),
  });
  worker.on('failed', (job, err) => logger.error({ err, [idField]: job?.id }, `${label} job run failed`));
  worker.on('error', (err) => logger.error({ err }, `${label} worker error`));
  return {
    worker,
    async close(force) {
      await worker.close(force);
      connection.disconnect();
    },
  };
}
