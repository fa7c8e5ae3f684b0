import { randomUUID } from 'node:crypto';
import type { Logger } from '@mediagate/shared/log';
import type { Request, RequestHandler } from 'express';

declare module 'http' {
  interface IncomingMessage {
    /** the request id (`x-request-id`), set by requestContext */
    id: string;
    /** the request's logger: its lines carry `req` {id, method, url} and what bindRequestLog added */
    log: Logger;
  }
}

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_URLS = new Set(['/healthz', '/readyz']);
const STATE = Symbol('requestLog');

type Bindings = Record<string, unknown>;

/** A request's logger, made the first time something logs through it (most requests never do). */
class RequestLog {
  private log?: Logger;
  private bindings?: Bindings;

  constructor(
    private readonly parent: Logger,
    private readonly req: { id: string; method: string; url: string },
  ) {}

  get(): Logger {
    this.log ??= this.parent.child({ req: this.req, ...this.bindings });
    return this.log;
  }

  set(log: Logger): void {
    this.log = log;
  }

  bind(bindings: Bindings): void {
    if (this.log) this.log.setBindings(bindings);
    else this.bindings = { ...this.bindings, ...bindings };
  }

  /**
   * Writes one line with the request's fields: through its logger when one was made, else on the
   * parent with the same fields, so that the end of a request that logged nothing else makes no
   * child logger for its one line.
   */
  write(level: 'info' | 'error', fields: Bindings, msg: string): void {
    if (this.log) this.log[level](fields, msg);
    else this.parent[level]({ req: this.req, ...this.bindings, ...fields }, msg);
  }
}

/**
 * Gives every request an id (the caller's `x-request-id` when it is sane, else a new one), echoes
 * it in the `x-request-id` answer header and logs the request's end with it ('request completed'
 * at info, 'request errored' at error for a 5xx, with the status and the response time), as
 * pino-http did. The request's logger (`req.log`) is made only when a line is written through it:
 * a child logger per request was a visible share of the API's CPU for lines that a request that
 * goes well does not write below info; at info the end-of-request line of a request that logged
 * nothing else is written on `logger` with the request's fields (the same line, no child).
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
    res.setHeader('x-request-id', id);
    req.id = id;
    const started = Date.now();
    const state = new RequestLog(logger, { id, method: req.method, url: req.url });
    (req as RequestWithLog)[STATE] = state;
    logOnPrototypeOf(req);
    if (!QUIET_URLS.has(req.url)) {
      const ended = () => {
        res.off('finish', ended);
        res.off('close', ended);
        const failed = res.statusCode >= 500;
        if (!logger.isLevelEnabled(failed ? 'error' : 'info')) return;
        const responseTime = Date.now() - started;
        if (failed) {
          state.write(
            'error',
            {
              res: { statusCode: res.statusCode },
              err: new Error(`failed with status code ${res.statusCode}`),
              responseTime,
            },
            'request errored',
          );
          return;
        }
        state.write(
          'info',
          { res: { statusCode: res.statusCode }, responseTime },
          !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted',
        );
      };
      res.on('finish', ended);
      res.on('close', ended);
    }
    next();
  };
}

type RequestWithLog = Request & { [STATE]?: RequestLog };

/**
 * `req.log` as an accessor on the requests' prototype (Express gives each app's requests one),
 * defined once: defining it on each request made every request object slower to use, a cost
 * larger than the child logger it saves.
 */
function logOnPrototypeOf(req: Request): void {
  const proto = Object.getPrototypeOf(req) as object;
  if (Object.hasOwn(proto, 'log')) return;
  Object.defineProperty(proto, 'log', {
    configurable: true,
    enumerable: false,
    get(this: RequestWithLog) {
      return this[STATE]?.get();
    },
    set(this: RequestWithLog, log: Logger) {
      const state = this[STATE];
      if (state) state.set(log);
      else
        Object.defineProperty(this, 'log', {
          value: log,
          writable: true,
          configurable: true,
          enumerable: true,
        });
    },
  });
}

/**
 * Adds `bindings` to every line of the request's logger, the request's end included, without
 * making the logger when nothing logs (pino's setBindings on a logger made for it).
 */
export function bindRequestLog(req: Request, bindings: Bindings): void {
  (req as RequestWithLog)[STATE]?.bind(bindings);
}
