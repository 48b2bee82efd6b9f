'use client';

import { Button } from '@/components/ui/button';

/**
 * The question a final choice asks before it is made, in place of the buttons that led to it: the same
 * confirmation the keyboard's shortcut asks (Enter confirms: the confirm button has the focus; Escape
 * cancels), so a click and a key are one path.
 */
export function ConfirmStep({
  question,
  confirmLabel,
  onConfirm,
  onCancel,
  disabled,
  ...props
}: Omit<React.ComponentProps<'fieldset'>, 'disabled'> & {
  question: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  disabled?: boolean;
}) {
  return (
    <fieldset
      aria-label={confirmLabel}
      disabled={disabled}
      data-testid="confirm-step"
      className="flex flex-wrap items-center gap-2 rounded-md border border-dashed px-3 py-2 text-sm"
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          onCancel();
        }
      }}
      {...props}
    >
      <span>{question}</span> <span className="text-xs text-muted-foreground">Enter confirms, Escape cancels.</span>
      <Button type="button" size="sm" autoFocus onClick={onConfirm}>
        {confirmLabel}
      </Button>
      <Button type="button" size="sm" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </fieldset>
  );
}
