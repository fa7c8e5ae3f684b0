import type { ModelCatalog } from '../catalog/model-catalog';
import { type VideoResolution, videoModelId } from '../catalog/video-models';
import type { CallRefundDetails } from '../db/schema';

/** What the vendor reported it produced (DashScope `usage`, parsed leniently). */
export interface ReportedVideoUsage {
  duration?: number;
  SR?: number;
  audio?: boolean;
}

/** A video task's settlement against what the vendor reported: quote, actual price, refund. */
export interface VideoUsageSettlement {
  quotedMicroUsd: number;
  actualMicroUsd: number;
  refundMicroUsd: number;
  /** English text of older ledger readers */
  reason: string;
  /** the refund's ledger details */
  details: CallRefundDetails;
}

/**
 * Prices what the vendor reports having made (seconds, resolution, sound) with the catalog's
 * per-second prices and compares it with what the task was charged. Never more than the quote:
 * a report of more, or a report that cannot be read, settles at the quote (refund 0). Null when
 * the model is no longer in the catalog or the vendor reported nothing.
 */
export function settleVideoUsage(
  catalog: ModelCatalog,
  task: { model: string; priceMicroUsd: number; metadata: unknown },
  usage: ReportedVideoUsage | undefined,
): VideoUsageSettlement | null {
  const model = catalog.video(task.model);
  if (!model || !usage) return null;
  const chargedAudio = model.audioOptional
    ? ((task.metadata as { parameters?: { audio?: boolean } } | null)?.parameters?.audio ?? true)
    : true;
  const duration =
    typeof usage.duration === 'number' && Number.isFinite(usage.duration) && usage.duration >= 0
      ? Math.min(usage.duration, model.durationSeconds)
      : model.durationSeconds;
  // a lower resolution than the model's is priced at that resolution's rate
  const resolution: VideoResolution =
    typeof usage.SR === 'number' && usage.SR > 0 && usage.SR < 1080 ? '720P' : model.resolution;
  const rates =
    resolution === model.resolution
      ? model.pricePerSecondMicroUsd
      : (catalog.video(videoModelId(model.family, model.durationSeconds, resolution))
          ?.pricePerSecondMicroUsd ?? model.pricePerSecondMicroUsd);
  const audio = chargedAudio && usage.audio !== false;
  const perSecond = audio ? rates.withAudio : rates.silent;
  const quoted = task.priceMicroUsd;
  const actual = Math.min(quoted, Math.round(perSecond * duration));
  const refund = quoted - actual;
  return {
    quotedMicroUsd: quoted,
    actualMicroUsd: actual,
    refundMicroUsd: refund,
    details: {
      cause: 'usage_settlement',
      quoted_micro_usd: quoted,
      actual_micro_usd: actual,
      duration_s: duration,
      resolution,
      audio,
    },
    reason: `usage settlement: quoted ${quoted}, actual ${actual} micro-USD (vendor reported ${duration} s, ${resolution}${audio ? '' : ', silent'}); refund ${refund}`,
  };
}
