import { Button, Space } from 'antd';
import { type Lang, useI18n } from '../i18n/i18n';

const LANGS: Array<{ lang: Lang; label: string; htmlLang: string }> = [
  { lang: 'en', label: 'EN', htmlLang: 'en' },
  { lang: 'zh', label: '中文', htmlLang: 'zh-CN' },
];

/** English / Simplified Chinese; the choice is remembered in this browser. */
export function LanguageSwitch() {
  const { lang, setLang, t } = useI18n();
  return (
    <Space.Compact role="group" aria-label={t('common.language')}>
      {LANGS.map((l) => (
        <Button
          key={l.lang}
          size="small"
          autoInsertSpace={false}
          lang={l.htmlLang}
          type={lang === l.lang ? 'primary' : 'default'}
          aria-pressed={lang === l.lang}
          onClick={() => setLang(l.lang)}
        >
          {l.label}
        </Button>
      ))}
    </Space.Compact>
  );
}
