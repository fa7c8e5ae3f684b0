import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import type { ApiConfig } from './config';

/**
 * The API's HTTP server with bounds on slow clients: headers must arrive within
 * HTTP_HEADERS_TIMEOUT_MS and the whole request (body included) within HTTP_REQUEST_TIMEOUT_MS,
 * else the answer is 408 and the connection closes; an idle keep-alive connection closes after
 * HTTP_KEEPALIVE_TIMEOUT_MS. Connections are checked every second (at most half the headers
 * timeout), so a trickling client is cut off soon after its bound. The time spent answering
 * (a synchronous image call) is not limited here.
 */
export function createApiServer(
  app: Express,
  config: Pick<
    ApiConfig,
    'HTTP_HEADERS_TIMEOUT_MS' | 'HTTP_REQUEST_TIMEOUT_MS' | 'HTTP_KEEPALIVE_TIMEOUT_MS'
  >,
): Server {
  const headersTimeout = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeout / 2))),
    },
    app,
  );
  server.keepAliveTimeout = config.HTTP_KEEPALIVE_TIMEOUT_MS;
  return server;
}
