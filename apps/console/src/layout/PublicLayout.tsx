import { Outlet } from 'react-router';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { useT } from '../i18n/i18n';

/** Sign-in, sign-up and password reset: one centred card (plain markup, so the first page stays small). */
export function PublicLayout() {
  const t = useT();
  return (
    <div style={{ minHeight: '100vh', background: '#f5f7fa', display: 'flex', flexDirection: 'column' }}>
      <header
        style={{
          display: 'flex',
          justifyContent: 'space-between',
          alignItems: 'center',
          padding: '12px 16px',
        }}
      >
        <strong style={{ fontSize: 18 }}>mediagate</strong>
        <LanguageSwitch />
      </header>
      <main style={{ display: 'flex', justifyContent: 'center', padding: '24px 12px 48px', flex: 1 }}>
        <div style={{ width: '100%', maxWidth: 420 }}>
          <Outlet />
        </div>
      </main>
      <footer style={{ textAlign: 'center', padding: 16, color: '#6b6b6b', fontSize: 13 }}>
        {t('app.tagline')}
      </footer>
    </div>
  );
}
