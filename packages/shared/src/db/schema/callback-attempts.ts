import { bigserial, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { callbackDeliveries } from './callback-deliveries';

/** Every HTTP attempt of a callback delivery, kept for the account to inspect (Svix's message attempts). */
export const callbackAttempts = pgTable(
  'callback_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => callbackDeliveries.id),
    /** 1-based number of the attempt over the delivery's whole life */
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    latencyMs: integer('latency_ms').notNull(),
    /** HTTP status of the answer; null when no answer arrived (timeout, refused, reset) */
    statusCode: integer('status_code'),
    error: text('error'),
    /** the start of the answer's body, cut at the configured limit */
    responseBody: text('response_body'),
  },
  (t) => [index('callback_attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);

export type CallbackAttemptRow = typeof callbackAttempts.$inferSelect;
