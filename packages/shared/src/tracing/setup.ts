/**
 * OpenTelemetry tracing of one process, exported over OTLP/HTTP. Import this module (through
 * `@mediagate/shared/tracing`) before anything else in a process entry: it instruments `http`, `pg`
 * and undici as they load. When no OTLP endpoint is configured nothing is registered, so every span
 * the code opens is the API's no-op and costs nothing measurable.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  type SpanKind,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { BullMQOtel } from 'bullmq-otel';

export interface Tracing {
  enabled: boolean;
  /** for BullMQ's `telemetry` option: carries the trace context inside each job; undefined when off */
  bullmq: BullMQOtel | undefined;
  /** exports what is left and stops; call last on shutdown */
  shutdown: () => Promise<void>;
}

/** Paths whose incoming requests are not traced (probes and scrapes). */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts tracing for the process named `serviceName` when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; otherwise returns a disabled handle. Reads the
 * standard variables: `OTEL_SERVICE_NAME` (overrides the name), `OTEL_EXPORTER_OTLP_PROTOCOL` /
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (`http/protobuf`, the default, or `http/json`),
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER_ARG` (a ratio of new traces to keep) and
 * `OTEL_BSP_SCHEDULE_DELAY` (ms between exports). Throws on an unsupported protocol.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    return { enabled: false, bullmq: undefined, shutdown: async () => {} };
  }
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  let exporter: SpanExporter;
  if (protocol === 'http/protobuf') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
    exporter = new OTLPTraceExporter();
  } else if (protocol === 'http/json') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter();
  } else {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported (http/protobuf or http/json)`);
  }
  const ratio = env.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(env.OTEL_TRACES_SAMPLER_ARG);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error('OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1');
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 5_000);

  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? serviceName }),
    sampler: new ParentBasedSampler({
      root: new NoHousekeepingRoots(
        ratio === 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio),
      ),
    }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter, scheduledDelayMillis: Number.isFinite(delay) ? delay : 5_000 }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.has((req.url ?? '').split('?')[0]!),
      }),
      new UndiciInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  return {
    enabled: true,
    bullmq: new BullMQOtel({ tracerName: 'mediagate' }),
    shutdown: () => provider.shutdown().catch(() => {}),
  };
}

/**
 * BullMQ's own housekeeping outside any job (the stalled-job check every 30 s, fetching the next
 * job, rate-limit waits, pause, resume, close) would start a trace of its own each time: those
 * roots are not recorded. Spans of a job's run have the job's context as parent and are kept.
 */
const BULLMQ_HOUSEKEEPING =
  /^(startStalledCheckTimer|moveStalledJobsToWait|getNextJob|rateLimit|pause|resume|close)( |$)/;

export class NoHousekeepingRoots implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(
    ctx: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (BULLMQ_HOUSEKEEPING.test(spanName)) return { decision: SamplingDecision.NOT_RECORD };
    return this.inner.shouldSample(ctx, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `NoHousekeepingRoots{${this.inner.toString()}}`;
  }
}
