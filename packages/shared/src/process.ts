import type { Server } from 'node:http';
import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0; exits 1 if `stop` throws or takes longer
 * than `hardLimitMs`. Every process entry uses it for a graceful shutdown.
 */
export function onShutdown(
  logger: Logger,
  stop: (signal: string) => Promise<void>,
  hardLimitMs = 30_000,
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, hardLimitMs);
    timer.unref();
    stop(signal).then(
      () => {
        logger.info('shut down cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Logs and exits on a start-up failure (bad configuration, unreachable dependency). */
export function exitOnStartupError(logger: Pick<Logger, 'fatal'> | undefined, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  if (logger) logger.fatal({ err }, 'start-up failed');
  process.stderr.write(`start-up failed: ${message}\n`);
  process.exit(1);
}

/**
 * Stops an HTTP server taking connections, closes its idle keep-alive ones, lets requests in flight
 * finish for up to `graceMs`, then drops what is left; resolves when the server is closed.
 */
export function closeHttpServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs).unref();
  });
}
