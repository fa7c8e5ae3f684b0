import { useT } from '../../../i18n/i18n';
import { formatCny, formatMicroUsd } from '../../../lib/format';
import type { TopUpOptions } from '../../../lib/topup';

/**
 * A top-up's bonus in words: named with its amount when there is one ("+ 10% bonus: $10.00"),
 * else why there is none (the amount that earns it). `totalMicroUsd` adds the sum when given.
 */
export function bonusText(
  t: ReturnType<typeof useT>,
  o: Pick<TopUpOptions, 'bonus_threshold_cny' | 'bonus_percent'>,
  bonusMicroUsd: number,
  totalMicroUsd: number,
): string | null {
  if (bonusMicroUsd > 0) {
    return t('topup.previewBonus', {
      percent: o.bonus_percent,
      bonus: formatMicroUsd(bonusMicroUsd),
      total: formatMicroUsd(totalMicroUsd),
    });
  }
  if (o.bonus_percent <= 0) return null;
  return t('topup.bonusHint', { threshold: formatCny(o.bonus_threshold_cny), percent: o.bonus_percent });
}
