import { z } from 'zod';
import { intFromEnv } from '../config/env';

/** The deadline of one image call when IMAGE_CALL_TIMEOUT_MS is not set. */
export const DEFAULT_IMAGE_CALL_TIMEOUT_MS = 10 * 60_000;

/** How long past the longest image call the reconciler waits before it settles one left open. */
export const IMAGE_SETTLE_MARGIN_MS = 5 * 60_000;

/**
 * Variables that bound an image call and its settlement; read by the api (the call's deadline) and
 * the reconciler (the sweep's age bound). Both processes check that the bound outlasts the deadline
 * (refineImageCallEnv), so the sweep never refunds a call that is still running.
 */
export const imageCallEnvSchema = z.object({
  /**
   * An image call (every upstream attempt, fail-over and download included) not finished after
   * this long is answered 500 and refunded in full; keep it above IMAGE_UPSTREAM_TIMEOUT_MS.
   */
  IMAGE_CALL_TIMEOUT_MS: intFromEnv(DEFAULT_IMAGE_CALL_TIMEOUT_MS, 1_000),
  /**
   * The reconciler refunds in full an image call still unsettled this long after its charge (its
   * API process died, or its settlement failed). Unset: IMAGE_CALL_TIMEOUT_MS + 5 minutes.
   */
  IMAGE_SETTLE_AFTER_MS: z.coerce.number().int().min(1_000).optional(),
});

type ImageCallEnv = z.output<typeof imageCallEnvSchema>;

/** The sweep's age bound: IMAGE_SETTLE_AFTER_MS, or the call deadline plus a margin. */
export function imageSettleAfterMs(env: ImageCallEnv): number {
  return env.IMAGE_SETTLE_AFTER_MS ?? env.IMAGE_CALL_TIMEOUT_MS + IMAGE_SETTLE_MARGIN_MS;
}

/** A zod superRefine for a process schema holding imageCallEnvSchema: the bound must outlast the deadline. */
export function refineImageCallEnv(env: ImageCallEnv, ctx: z.RefinementCtx): void {
  if (imageSettleAfterMs(env) <= env.IMAGE_CALL_TIMEOUT_MS) {
    ctx.addIssue({
      code: 'custom',
      path: ['IMAGE_SETTLE_AFTER_MS'],
      message: `must be longer than IMAGE_CALL_TIMEOUT_MS (${env.IMAGE_CALL_TIMEOUT_MS} ms), or the sweep would refund image calls still running`,
    });
  }
}
