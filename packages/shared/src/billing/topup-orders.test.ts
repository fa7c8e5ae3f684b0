import { fenToYuan, yuanToFen } from '../payments/types';
import { bankTransferReference, quoteCnyTopUp } from './topup-orders';
import { TopUpTooSmallError } from './topups';

const rules = { minMicroUsd: 7_000_000, bonusThresholdMicroUsd: 100_000_000, bonusPercent: 10, cnyPerUsd: 5 };

describe('CNY top-up quotes', () => {
  it('credits the amount at the rate, from the minimum, with the bonus from the threshold', () => {
    expect(quoteCnyTopUp(3500, rules)).toEqual({ creditMicroUsd: 7_000_000, bonusMicroUsd: 0 });
    expect(quoteCnyTopUp(4050, rules)).toEqual({ creditMicroUsd: 8_100_000, bonusMicroUsd: 0 });
    expect(quoteCnyTopUp(49_999, rules)).toEqual({ creditMicroUsd: 99_998_000, bonusMicroUsd: 0 });
    expect(quoteCnyTopUp(50_000, rules)).toEqual({ creditMicroUsd: 100_000_000, bonusMicroUsd: 10_000_000 });
    expect(() => quoteCnyTopUp(3499, rules)).toThrow(TopUpTooSmallError);
  });

  it('never credits more than was paid, and credits the shown minimum at rates that are not binary fractions', () => {
    const r = { ...rules, cnyPerUsd: 7.2 };
    expect(quoteCnyTopUp(5040, r).creditMicroUsd).toBe(7_000_000);
    expect(() => quoteCnyTopUp(5039, r)).toThrow(TopUpTooSmallError);
    // 1 fen at 3 CNY/USD is 3333.33 micro-USD: rounded down
    expect(quoteCnyTopUp(2101, { ...rules, cnyPerUsd: 3 }).creditMicroUsd).toBe(7_003_333);
  });
});

describe('yuan and fen', () => {
  it('reads the vendors’ yuan strings exactly, and refuses anything else', () => {
    expect(yuanToFen('35.00')).toBe(3500);
    expect(yuanToFen('35.5')).toBe(3550);
    expect(yuanToFen('0.01')).toBe(1);
    expect(yuanToFen('35')).toBe(3500);
    for (const bad of ['', '35.001', '-1', '1e3', ' 35', '35.', 'abc']) expect(yuanToFen(bad)).toBeNull();
    expect(fenToYuan(3500)).toBe('35.00');
    expect(fenToYuan(4005)).toBe('40.05');
  });
});

describe('bank-transfer references', () => {
  it('are stable per account, distinct between accounts, and memo-friendly', () => {
    const a = bankTransferReference('acct_01KAAAAAAAAAAAAAAAAAAAAAAA');
    expect(a).toMatch(/^MG[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(bankTransferReference('acct_01KAAAAAAAAAAAAAAAAAAAAAAA')).toBe(a);
    expect(bankTransferReference('acct_01KAAAAAAAAAAAAAAAAAAAAAAB')).not.toBe(a);
  });
});
