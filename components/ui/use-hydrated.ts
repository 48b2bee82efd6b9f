'use client';

import { useEffect, useState } from 'react';

/**
 * False in the server's HTML and until React has attached its handlers, then true. A button that decides
 * is disabled until then: a click on the server's HTML does nothing, and a person who sees a button that
 * does not answer clicks again or gives up (issue 32).
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
