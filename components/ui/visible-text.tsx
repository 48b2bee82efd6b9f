import { type HiddenFound, hiddenWarning, visibleParts } from '@/lib/text';
import { cn } from '@/lib/utils';
import { Alert, AlertDescription, AlertTitle } from './alert';

/**
 * Untrusted text as React text, with every character that would hide itself or reorder what is read
 * (a bidi override, a zero-width space, a control) shown as its code point, `⟨U+202E⟩`, marked so
 * it stands out (lib/text/visible-text.ts). The mark is text too: copying the page copies the mark,
 * never the character. Use it wherever the Studio shows a value it did not write.
 */
export function VisibleText({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  const parts = visibleParts(text);
  if (parts.length === 1 && parts[0]?.kind === 'text') return text;
  return parts.map((part, i) =>
    part.kind === 'text' ? (
      part.text
    ) : (
      <span
        key={i}
        data-slot="hidden-char"
        data-kind={part.char.kind}
        title={part.char.name}
        className={cn(
          'mx-px rounded-sm px-0.5 font-mono text-[0.85em] font-medium not-italic ring-1 ring-inset',
          part.char.kind === 'direction'
            ? 'bg-red-100 text-red-800 ring-red-400/60 dark:bg-red-950 dark:text-red-200'
            : 'bg-amber-100 text-amber-900 ring-amber-400/60 dark:bg-amber-950 dark:text-amber-200',
        )}
      >
        {part.mark}
      </span>
    ),
  );
}

/** Above a decision: what the arguments hold that a person would not see, named by code point. Nothing when they hold none. */
export function HiddenCharsWarning({
  found,
  what,
  className,
  ...props
}: React.ComponentProps<'div'> & {
  found: HiddenFound;
  /** Whose text it is, for the sentence (default `These arguments`). */
  what?: string;
}) {
  const text = hiddenWarning(found, { what });
  if (!text) return null;
  const direction = found.chars.some((c) => c.kind === 'direction');
  return (
    <Alert variant="destructive" data-testid="hidden-chars-warning" data-count={found.count} className={className} {...props}>
      <AlertTitle>
        {direction ? 'Check the arguments: they hold characters that reorder text' : 'Check the arguments: they hold invisible characters'}
      </AlertTitle>
      <AlertDescription>{text} What executes is the text with these characters in it, not what it would look like without the marks.</AlertDescription>
    </Alert>
  );
}
