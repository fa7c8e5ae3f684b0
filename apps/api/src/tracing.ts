import { startTracing } from '@mediagate/shared/tracing';

/** Started before any other module loads, so that http and pg are instrumented (see server.ts). */
export const tracing = startTracing('mediagate-api');
