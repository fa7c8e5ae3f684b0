import type { Server } from 'node:http';
import { loadConfig } from '@mediagate/shared/config';
import { createLogger } from '@mediagate/shared/log';
import { closeHttpServer, exitOnStartupError, onShutdown } from '@mediagate/shared/process';
import { buildSimApp } from './app';
import { simEnvSchema, timingFromConfig } from './config';

/** Process entry of the simulator: reads the env, listens, closes cleanly on SIGTERM. */
function main(): void {
  const config = loadConfig(simEnvSchema);
  const logger = createLogger({ service: 'upstream-sim', level: config.LOG_LEVEL });
  const { app } = buildSimApp(config, logger);
  const server: Server = app.listen(config.SIM_PORT, config.SIM_HOST, (err?: Error) => {
    if (err) exitOnStartupError(logger, err);
    const addr = server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.SIM_PORT;
    logger.info(
      {
        host: config.SIM_HOST,
        port,
        publicUrl: config.SIM_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
        video: timingFromConfig(config),
        limits: {
          dashscopeSubmitRps: config.SIM_DASHSCOPE_SUBMIT_RPS,
          dashscopeMaxRunning: config.SIM_DASHSCOPE_MAX_RUNNING,
          dashscopeQueryQps: config.SIM_DASHSCOPE_QUERY_QPS,
          arkRpm: config.SIM_ARK_RPM,
        },
        keys: config.SIM_API_KEYS.length > 0 ? config.SIM_API_KEYS.length : 'any',
      },
      'upstream-sim listening',
    );
  });
  // Clients keep connections alive between polls; outlive their idle timeouts.
  server.keepAliveTimeout = 65_000;

  onShutdown(logger, async () => {
    await closeHttpServer(server, 5_000);
  });
}

try {
  main();
} catch (err) {
  exitOnStartupError(undefined, err);
}
