import pino, { type Logger } from 'pino';
import { traceFields } from './tracing/spans';

export type { Logger };

/** Secrets that must never reach a log line, wherever they appear in a logged object. */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  'password',
  '*.apiKey',
  '*.password',
];

/**
 * A pino logger for one process; `service` names the process (api, worker:video, ...). Lines
 * written inside a traced operation carry its `trace_id` and `span_id`. `fd`: where lines go
 * (default stdout; the CLI writes them to stderr, its stdout being its answer).
 */
export function createLogger(opts: { service: string; level?: string; fd?: number }): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: { service: opts.service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: traceFields,
    },
    opts.fd === undefined ? undefined : pino.destination({ fd: opts.fd, sync: true }),
  );
}
