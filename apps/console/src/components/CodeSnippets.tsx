import { Tabs, Typography, theme } from 'antd';
import { useT } from '../i18n/i18n';
import { SNIPPET_LANGS, type SnippetCall, type SnippetLang, snippet } from '../lib/snippets';

const LABELS: Record<SnippetLang, string> = { curl: 'curl', node: 'Node.js', python: 'Python' };

/** A call as curl, Node and Python (the `openai` client), each in a box with a copy button. */
export function CodeSnippets({ call, baseUrl, name }: { call: SnippetCall; baseUrl: string; name: string }) {
  const t = useT();
  const { token } = theme.useToken();
  return (
    <Tabs
      size="small"
      items={SNIPPET_LANGS.map((lang) => {
        const text = snippet(lang, call, baseUrl);
        return {
          key: lang,
          label: LABELS[lang],
          children: (
            <div
              style={{
                border: `1px solid ${token.colorBorderSecondary}`,
                borderRadius: token.borderRadius,
                background: token.colorFillQuaternary,
              }}
            >
              {/* the copy button on a line of its own, so that it never covers the code on a phone */}
              <div
                style={{
                  display: 'flex',
                  justifyContent: 'flex-end',
                  padding: '4px 10px',
                  borderBottom: `1px solid ${token.colorBorderSecondary}`,
                }}
              >
                <Typography.Text
                  type="secondary"
                  style={{ fontSize: 12 }}
                  copyable={{ text, tooltips: [t('common.copy'), t('common.copied')] }}
                >
                  {LABELS[lang]}
                </Typography.Text>
              </div>
              <pre
                data-testid={`snippet-${name}-${lang}`}
                style={{
                  margin: 0,
                  padding: '10px 12px',
                  overflowX: 'auto',
                  fontSize: 12.5,
                  fontFamily: token.fontFamilyCode,
                  whiteSpace: 'pre',
                }}
              >
                {text}
              </pre>
            </div>
          ),
        };
      })}
    />
  );
}
