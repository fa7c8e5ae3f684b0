import { startTracing } from '@mediagate/shared/tracing';

/** The roles as --role= or WORKER_ROLE give them, read before configuration is (main.ts checks them). */
const roles =
  process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ??
  process.env.WORKER_ROLE ??
  'video';

/** Started before any other module loads, so that http, pg and undici are instrumented (see main.ts). */
export const tracing = startTracing(`mediagate-worker-${roles.split(',').join('+')}`);
