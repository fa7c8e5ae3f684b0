import { Progress, Typography } from 'antd';
import { useT } from '../i18n/i18n';
import { passwordStrength, type Strength } from '../lib/password';

const COLORS: Record<Strength, string> = {
  too_short: '#bfbfbf',
  weak: '#ff4d4f',
  fair: '#faad14',
  good: '#52c41a',
  strong: '#389e0d',
};
const PERCENT: Record<Strength, number> = { too_short: 10, weak: 25, fair: 50, good: 75, strong: 100 };

/** A bar and words telling how strong the typed password is; announced politely to screen readers. */
export function PasswordStrength({ password }: { password: string }) {
  const t = useT();
  if (!password) return null;
  const { strength } = passwordStrength(password);
  return (
    <div aria-live="polite" style={{ marginTop: -8, marginBottom: 12 }}>
      <Progress percent={PERCENT[strength]} showInfo={false} strokeColor={COLORS[strength]} size="small" />
      <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="password-strength">
        {t(`password.${strength}`)}
      </Typography.Text>
    </div>
  );
}
