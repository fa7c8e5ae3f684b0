import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { en, type MessageKey } from './en';
import { zh } from './zh';

export type Lang = 'en' | 'zh';
const STORAGE_KEY = 'mediagate.lang';
const dictionaries: Record<Lang, Record<MessageKey, string>> = { en, zh };

/** The language stored by an earlier choice, else the browser's (Chinese or English). */
export function initialLang(): Lang {
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    if (stored === 'en' || stored === 'zh') return stored;
  } catch {
    // storage may be refused (private mode); the browser's language decides then
  }
  return /^zh\b/i.test(window.navigator.language ?? '') ? 'zh' : 'en';
}

/** `{name}` placeholders replaced by `vars`. */
export function format(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

interface I18n {
  lang: Lang;
  setLang: (lang: Lang) => void;
  t: Translate;
}

const I18nContext = createContext<I18n | null>(null);

export function I18nProvider({ children, lang: fixed }: { children: ReactNode; lang?: Lang }) {
  const [lang, setLangState] = useState<Lang>(() => fixed ?? initialLang());
  const setLang = useCallback((next: Lang) => {
    setLangState(next);
    try {
      window.localStorage.setItem(STORAGE_KEY, next); // the only thing the console stores
    } catch {
      // not stored: the choice lasts for this page only
    }
    document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  }, []);
  const value = useMemo<I18n>(
    () => ({ lang, setLang, t: (key, vars) => format(dictionaries[lang][key] ?? en[key], vars) }),
    [lang, setLang],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const value = useContext(I18nContext);
  if (!value) throw new Error('useI18n outside I18nProvider');
  return value;
}

export const useT = (): Translate => useI18n().t;
