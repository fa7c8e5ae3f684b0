import { useCallback, useEffect, useState } from 'react';

/** Seconds left of a cool-down, ticking down once a second; `start(n)` begins a new one. */
export function useCountdown(): [number, (seconds: number) => void] {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return;
    const timer = setTimeout(() => setNow(Date.now()), 1_000 - ((until - now) % 1_000 || 0) || 1_000);
    return () => clearTimeout(timer);
  }, [until, now]);
  const start = useCallback((seconds: number) => {
    const t = Date.now();
    setNow(t);
    setUntil(t + seconds * 1_000);
  }, []);
  return [Math.max(0, Math.ceil((until - now) / 1_000)), start];
}

/** Seconds from now until `at` (Unix seconds), ticking once a second; null without a time. */
export function useSecondsUntil(at: number | null | undefined): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!at) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [at]);
  return at ? Math.max(0, Math.round(at - now / 1000)) : null;
}
