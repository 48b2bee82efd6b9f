'use client';

import { useState } from 'react';
import { VisibleText } from '@/components/ui/visible-text';
import { cn } from '@/lib/utils';
import { prettyJson } from './json-payload';

/** Lines shown before "Show all". */
const PREVIEW_LINES = 12;
/** Characters shown at most, even expanded: one huge tool output must not stall the page. */
const MAX_CHARS = 64_000;

/** A payload as PayloadText shows it: a string as is, anything else as pretty JSON. */
export function payloadString(value: unknown): string {
  return typeof value === 'string' ? value : prettyJson(value);
}

/**
 * A payload (a string as is, anything else as pretty JSON) as plain text: React escapes it, so HTML
 * in a tool's arguments or a model's answer is shown, never rendered, and a character that hides or
 * reorders text is shown as its code point (VisibleText). Long ones start collapsed to a
 * preview, very long ones are cut with a note (the journal record below each event has the rest).
 */
export function PayloadText({ value, label, className, ...props }: React.ComponentProps<'div'> & { value: unknown; label?: string }) {
  const [open, setOpen] = useState(false);
  const full = payloadString(value);
  const lines = full.split('\n');
  const long = lines.length > PREVIEW_LINES;
  const shown = open || !long ? full.slice(0, MAX_CHARS) : lines.slice(0, PREVIEW_LINES).join('\n');
  return (
    <div data-slot="payload-text" className={cn('min-w-0', className)} {...props}>
      {label ? (
        <div className="mb-0.5 text-xs text-muted-foreground">
          <VisibleText text={label} />
        </div>
      ) : null}
      <div className="overflow-x-auto rounded-md bg-muted px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words">
        <VisibleText text={shown} />
        {open && full.length > MAX_CHARS ? `\n… ${full.length - MAX_CHARS} more characters not shown` : null}
        {!open && long ? '\n…' : null}
      </div>
      {long ? (
        <button type="button" className="mt-1 text-xs text-link hover:underline" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
          {open ? 'Show less' : `Show all ${lines.length} lines (${sizeOf(full.length)})`}
        </button>
      ) : null}
    </div>
  );
}

export function sizeOf(chars: number): string {
  return chars < 1024 ? `${chars} characters` : `${(chars / 1024).toFixed(1)} K characters`;
}
