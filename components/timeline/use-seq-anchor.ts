'use client';

import { useEffect, useRef } from 'react';

/** The seq of a `#seq-N` fragment. */
export function seqFromHash(hash: string): number | undefined {
  const match = /^#seq-(\d{1,9})$/.exec(hash);
  return match ? Number(match[1]) : undefined;
}

/** Calls `onTarget(seq)` for the page's `#seq-N` fragment on load and whenever it changes. */
export function useSeqAnchor(onTarget: (seq: number) => void): void {
  const latest = useRef(onTarget);
  latest.current = onTarget;
  useEffect(() => {
    const check = () => {
      const seq = seqFromHash(window.location.hash);
      if (seq !== undefined) latest.current(seq);
    };
    check();
    window.addEventListener('hashchange', check);
    return () => window.removeEventListener('hashchange', check);
  }, []);
}
