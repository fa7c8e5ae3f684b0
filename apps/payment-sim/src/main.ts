import type { Server } from 'node:http';
import { loadConfig } from '@mediagate/shared/config';
import { createLogger } from '@mediagate/shared/log';
import { closeHttpServer, exitOnStartupError, onShutdown } from '@mediagate/shared/process';
import { buildPaymentSim } from './app';
import { paySimEnvSchema } from './config';
import { generatePaymentKeys } from './keys';

/**
 * Process entry of the payment simulator. Without keys in the environment it generates a full
 * set and logs the merchant side (the variables the API and worker need) at start.
 */
function main(): void {
  let config = loadConfig(paySimEnvSchema);
  const logger = createLogger({ service: 'payment-sim', level: config.LOG_LEVEL });
  if (!config.PAYSIM_ALIPAY_PRIVATE_KEY && !config.PAYSIM_WECHAT_PUBKEY_PRIVATE_KEY) {
    let keys: ReturnType<typeof generatePaymentKeys>;
    try {
      keys = generatePaymentKeys();
    } catch {
      // no openssl to issue a platform certificate: WeChat Pay in public-key mode only
      keys = generatePaymentKeys({ withCertificate: false });
    }
    config = loadConfig(paySimEnvSchema, { ...process.env, ...keys.sim });
    logger.info(
      { merchantEnv: keys.merchant },
      'generated key pairs; configure the API and worker with merchantEnv',
    );
  }
  const sim = buildPaymentSim(config, logger);
  const server: Server = sim.app.listen(config.PAYSIM_PORT, config.PAYSIM_HOST, (err?: Error) => {
    if (err) exitOnStartupError(logger, err);
    const addr = server.address();
    logger.info(
      { port: typeof addr === 'object' && addr ? addr.port : config.PAYSIM_PORT },
      'payment-sim listening',
    );
  });
  // merchants keep connections alive between calls: outlive their idle timeouts
  server.keepAliveTimeout = 65_000;
  onShutdown(logger, async () => {
    sim.close();
    await closeHttpServer(server, 5_000);
  });
}

try {
  main();
} catch (err) {
  exitOnStartupError(undefined, err);
}
