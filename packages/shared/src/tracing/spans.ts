import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

const tracer = () => trace.getTracer('mediagate');

/**
 * Runs `fn` inside a span named `name`, a child of the active one; records a thrown error on it
 * (BullMQ's DelayedError, a job waiting, is not one). With tracing off the span is the API's
 * no-op and this is a plain call.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      if ((err as Error)?.name !== 'DelayedError') {
        span.recordException(err as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      }
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The active trace and span ids, for log lines; empty when nothing is traced. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ctx = span.spanContext();
  if (!trace.isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

/**
 * Captures the active span (a request's server span, when called as the request arrives) and
 * returns a function that names it after the route that served it (`GET /v1/videos/:taskId`) and
 * records the pattern as `http.route`. A no-op when nothing is traced.
 */
export function routeNamerOfActiveSpan(): (method: string, route: string) => void {
  const span = trace.getActiveSpan();
  return (method, route) => {
    if (!span) return;
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  };
}
