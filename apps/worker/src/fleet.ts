import { ledgerCheckStatus } from '@mediagate/shared/billing';
import type { Database } from '@mediagate/shared/db';
import { copyBacklog } from '@mediagate/shared/media';
import type { FleetFacts, FleetSource } from '@mediagate/shared/metrics';
import { queueFacts, type RedisClient } from '@mediagate/shared/queue';
import { activeTaskStats } from '@mediagate/shared/tasks';
import { countDisabledEndpoints, deliveryBacklog } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';

// Takes the lease when free, renews it when ours; 1 when this process holds it.
const LEASE = `local v = redis.call('get', KEYS[1])
if v == ARGV[1] then redis.call('pexpire', KEYS[1], ARGV[2]) return 1 end
if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * The fleet-wide facts (queues, unfinished tasks, callback and media backlogs, the ledger check,
 * disabled webhook endpoints),
 * reported by one reconciler of the fleet: the one holding a lease in Redis (`key`), taken or
 * renewed whenever this process is scraped. Another reconciler takes over once the holder has not
 * been scraped for `leaseMs` (it died, or left the scrape), so the gauges may be absent that long.
 */
export function fleetSource(deps: {
  database: Database;
  redis: RedisClient;
  queues: Queue[];
  key: string;
  token: string;
  leaseMs?: number;
}): FleetSource & { release(): Promise<void> } {
  const leaseMs = deps.leaseMs ?? 60_000;
  return {
    async leading() {
      return (await deps.redis.eval(LEASE, 1, deps.key, deps.token, leaseMs)) === 1;
    },
    async read(): Promise<FleetFacts> {
      const { db } = deps.database;
      const [queues, tasks, callbacks, media, ledger, disabledEndpoints] = await Promise.all([
        Promise.all(deps.queues.map((q) => queueFacts(q))),
        activeTaskStats(db),
        deliveryBacklog(db),
        copyBacklog(db),
        ledgerCheckStatus(db),
        countDisabledEndpoints(db),
      ]);
      return { queues, tasks, callbacks, media, ledger, webhookEndpoints: { disabled: disabledEndpoints } };
    },
    async release() {
      await deps.redis.eval(RELEASE, 1, deps.key, deps.token);
    },
  };
}
