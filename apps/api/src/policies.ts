import type { RegistrationPolicy } from '@mediagate/shared/accounts';
import { type TopUpPolicy, usdToMicro } from '@mediagate/shared/billing';
import type { ApiDeps } from './deps';

/** The rules of sign-up (codes, attempts, resends, the test credit) from the configuration. */
export function registrationPolicy(config: ApiDeps['config']): RegistrationPolicy {
  return {
    codeTtlMs: config.VERIFICATION_CODE_TTL_MS,
    maxAttempts: config.VERIFICATION_MAX_ATTEMPTS,
    resendCooldownMs: config.VERIFICATION_RESEND_COOLDOWN_MS,
    signupCreditMicroUsd: usdToMicro(config.SIGNUP_CREDIT_USD),
  };
}

/** The rules of top-ups (least amount, bonus) from the configuration. */
export function topUpPolicy(config: ApiDeps['config']): TopUpPolicy {
  return {
    minMicroUsd: usdToMicro(config.TOPUP_MIN_USD),
    bonusThresholdMicroUsd: usdToMicro(config.TOPUP_BONUS_THRESHOLD_USD),
    bonusPercent: config.TOPUP_BONUS_PERCENT,
  };
}
