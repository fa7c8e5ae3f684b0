import { pgErrorCode } from './client';

/**
 * SQLSTATEs of a statement that failed for a reason of the moment, so that running it again later
 * may succeed: the connection (class 08), a serialization failure or deadlock (40001, 40P01), a
 * lock or statement timeout (55P03, 57014), the server shutting down or starting (57P01-57P03),
 * too many connections (53300).
 */
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53300']);

/** socket errors of a connection to Postgres that a later one may not meet */
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** what node-postgres and its pool throw, without a code, when a connection is lost or not had in time */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/, // unexpectedly; due to connection timeout
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Query read timeout$/,
];

/**
 * Whether `err`, thrown by a database call, is a fault of the moment (a lost or refused
 * connection, a pool with no free connection in time, a serialization failure, a lock or
 * statement timeout, the server shutting down) rather than of the statement or the data, looking
 * through drizzle's wrapping (`cause`). Such a call may be run again later; any other error
 * (a constraint, a syntax error, a bug) is answered false. Never throws.
 */
export function isTransientDbError(err: unknown): boolean {
  const sqlstate = pgErrorCode(err);
  if (sqlstate !== undefined) return sqlstate.startsWith('08') || TRANSIENT_SQLSTATES.has(sqlstate);
  return causeChain(err).some(
    (e) =>
      (typeof e.code === 'string' && TRANSIENT_SOCKET_CODES.has(e.code)) ||
      (typeof e.message === 'string' && TRANSIENT_MESSAGES.some((m) => m.test(e.message as string))),
  );
}

type ErrorLike = { code?: unknown; message?: unknown; cause?: unknown };

/** `err` and the errors it wraps (`cause`), outermost first, at most five. */
function causeChain(err: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let e = err as ErrorLike | undefined; e && typeof e === 'object' && chain.length < 5; ) {
    chain.push(e);
    e = e.cause as ErrorLike | undefined;
  }
  return chain;
}

/**
 * How a retry of a database fault of the moment is logged: a warning, and every tenth try in a
 * row an error, so that a fault that does not clear (a statement that always meets its timeout,
 * a database that stays read-only) reaches the error logs and their alerts while the job waits on.
 */
export function databaseRetryLogLevel(tries: number): 'warn' | 'error' {
  return tries % 10 === 0 ? 'error' : 'warn';
}

/**
 * What a log line says of a database fault: its SQLSTATE or socket code and the innermost error's
 * message, never the failed statement and its parameters (drizzle's wrapping carries both, and the
 * parameters can be a customer's data).
 */
export function databaseFaultOf(err: unknown): { code?: string; message: string } {
  const chain = causeChain(err);
  const innermost = chain.at(-1);
  const code = pgErrorCode(err) ?? (typeof innermost?.code === 'string' ? innermost.code : undefined);
  return {
    ...(code ? { code } : {}),
    message: typeof innermost?.message === 'string' ? innermost.message : String(err),
  };
}
