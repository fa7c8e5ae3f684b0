import { scaleOutSuite } from './scale-out';
import { startRedisCluster } from './scale-services';

/** The scale-out proof against a real Redis Cluster of three masters, started for this file. */
jest.setTimeout(600_000);

// 300 tasks in `pnpm test` (SCALE_TASKS=1000 for the full run)

scaleOutSuite(async () => {
  const cluster = await startRedisCluster(3);
  return {
    label: cluster.describe,
    env: { REDIS_URL: cluster.url, REDIS_CLUSTER: 'true' },
    stop: cluster.stop,
  };
}, 300);
