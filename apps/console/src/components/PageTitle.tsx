import { type CSSProperties, type ReactNode, useEffect } from 'react';

/** The browser tab's title while a page is shown: "<page> · mediagate". */
export function useDocumentTitle(page: string | undefined): void {
  useEffect(() => {
    document.title = page ? `${page} · mediagate` : 'mediagate';
  }, [page]);
}

/**
 * A page's one `h1`, which also names the browser tab ("API keys · mediagate"). `title` names the
 * tab when the heading is not plain text. Plain markup, so the sign-in page's first load stays small.
 */
export function PageTitle({
  children,
  title,
  breakAll,
  style,
}: {
  children: ReactNode;
  title?: string;
  breakAll?: boolean;
  style?: CSSProperties;
}) {
  useDocumentTitle(title ?? (typeof children === 'string' ? children : undefined));
  return (
    <h1
      style={{
        margin: 0,
        fontSize: 26,
        fontWeight: 600,
        lineHeight: 1.3,
        color: 'rgba(0, 0, 0, 0.88)',
        wordBreak: breakAll ? 'break-all' : undefined,
        ...style,
      }}
    >
      {children}
    </h1>
  );
}
