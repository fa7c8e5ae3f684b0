import type { MouseEvent } from 'react';
import { useNavigate } from 'react-router';

/**
 * The click of a button that is a link (`<Button href>`): a plain click moves inside the app; a
 * click with a modifier or another button keeps the browser's own behaviour (a new tab, say).
 */
export function useGo() {
  const navigate = useNavigate();
  return (to: string) => (e: MouseEvent<HTMLElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}
