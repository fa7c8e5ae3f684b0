import { settleVideoUsage } from '@mediagate/shared/billing';
import type { ModelCatalog } from '@mediagate/shared/catalog';
import type { TaskRow } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import type { SuccessRefund } from '@mediagate/shared/tasks';

/**
 * The refund a success owes when the vendor reports less than was charged (shorter, lower
 * resolution, silent), or undefined. Never more than the charge; see settleVideoUsage.
 */
export function usageRefund(
  catalog: ModelCatalog,
  row: Pick<TaskRow, 'model' | 'priceMicroUsd' | 'metadata'>,
  usage: unknown,
  log: Logger,
): SuccessRefund | undefined {
  const settled = settleVideoUsage(catalog, row, usage as Parameters<typeof settleVideoUsage>[2]);
  if (!settled || settled.refundMicroUsd <= 0) return undefined;
  log.info(
    { quoted: settled.quotedMicroUsd, actual: settled.actualMicroUsd, refund: settled.refundMicroUsd },
    'the vendor reported less than was charged; refunding the difference',
  );
  return { amountMicroUsd: settled.refundMicroUsd, reason: settled.reason, details: settled.details };
}
