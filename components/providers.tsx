'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { z } from 'zod';

// The Studio's CSP has no 'unsafe-eval': zod (the AI SDK's stream schemas parse in the browser: the chat,
// the live step) must not compile parsers with `new Function`, nor probe whether it may (a probe the CSP
// reports as a violation even though zod catches it). One setting for every zod schema in this tab.
z.config({ jitless: true });

/** Client-side providers. One QueryClient per browser tab (never shared between requests on the server). */
export function Providers({ children }: { children: React.ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        // Server components render the first view; live updates will write into this cache.
        defaultOptions: { queries: { staleTime: 5_000, refetchOnWindowFocus: false } },
      }),
  );
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
