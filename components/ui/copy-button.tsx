'use client';

import { useState } from 'react';
import { cn } from '@/lib/utils';

/** Copies `value` to the clipboard; says so for a moment. */
export function CopyButton({ value, label = 'Copy', className, ...props }: React.ComponentProps<'button'> & { value: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | 'failed'>(false);
  return (
    <button
      type="button"
      data-slot="copy-button"
      className={cn('rounded border px-1.5 py-0.5 text-[11px] leading-none text-muted-foreground hover:bg-accent hover:text-foreground', className)}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
        } catch {
          setCopied('failed');
        }
        setTimeout(() => setCopied(false), 1_500);
      }}
      {...props}
    >
      {copied === true ? 'Copied' : copied === 'failed' ? 'Copy failed' : label}
    </button>
  );
}
