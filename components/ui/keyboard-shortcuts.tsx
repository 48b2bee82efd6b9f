'use client';

import { useEffect, useRef, useState } from 'react';
import { cn } from '@/lib/utils';

/**
 * Keyboard use of a list of items (inbox cards, timeline events), found in the DOM by
 * `data-keynav-item`: j / k move to the next / previous item, and each `action` key presses the
 * focused item's `[data-key-action=<name>]` button, after a confirmation (Enter) when the action is
 * final, or at once when it only opens a form (which is its own confirmation). ? shows the keys.
 * Keys typed into a field, or with a modifier, are left alone.
 */
export interface KeyAction {
  key: string;
  name: string;
  label: string;
  /** Ask before pressing (Enter confirms, Escape cancels). */
  confirm?: boolean;
}

function items(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('[data-keynav-item]')];
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

export function KeyboardShortcuts({ actions, what }: { actions: readonly KeyAction[]; what: string }) {
  const [help, setHelp] = useState(false);
  const [pending, setPending] = useState<{ action: KeyAction; item: HTMLElement }>();
  const current = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const focus = (element: HTMLElement | undefined) => {
      if (!element) return;
      current.current?.removeAttribute('data-keynav-focused');
      current.current = element;
      element.setAttribute('data-keynav-focused', '');
      if (!element.hasAttribute('tabindex')) element.tabIndex = -1;
      element.focus({ preventScroll: true });
      element.scrollIntoView({ block: 'nearest' });
    };
    const press = (item: HTMLElement, action: KeyAction) => {
      const button = item.querySelector<HTMLButtonElement>(`[data-key-action="${action.name}"]`);
      if (!button || button.disabled) return;
      button.click();
      // A form that opened takes the typing: its first field.
      requestAnimationFrame(() => item.querySelector<HTMLElement>('textarea, input:not([type=hidden])')?.focus());
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      if (pending) {
        if (event.key === 'Enter') {
          event.preventDefault();
          press(pending.item, pending.action);
          setPending(undefined);
        } else if (event.key === 'Escape') setPending(undefined);
        return;
      }
      if (typing(event.target)) return;
      if (event.key === '?') return setHelp((h) => !h);
      if (event.key === 'Escape') return setHelp(false);
      const list = items();
      const at = current.current ? list.indexOf(current.current) : -1;
      if (event.key === 'j') return focus(list[Math.min(at + 1, list.length - 1)]);
      if (event.key === 'k') return focus(list[Math.max(at - 1, 0)]);
      const action = actions.find((a) => a.key === event.key);
      const item = current.current && list.includes(current.current) ? current.current : undefined;
      if (!action || !item?.querySelector(`[data-key-action="${action.name}"]`)) return;
      event.preventDefault();
      if (action.confirm) setPending({ action, item });
      else press(item, action);
    };
    window.addEventListener('keydown', onKey);
    // Says the keys are listened to (a key pressed before the page hydrated goes nowhere): tests wait for it.
    document.documentElement.dataset.keyboardShortcuts = 'on';
    return () => {
      window.removeEventListener('keydown', onKey);
      delete document.documentElement.dataset.keyboardShortcuts;
    };
  }, [actions, pending]);

  return (
    <>
      {pending ? (
        <div
          role="alertdialog"
          data-testid="key-confirm"
          className="fixed inset-x-0 bottom-6 z-40 mx-auto w-fit rounded-lg border bg-background px-4 py-3 text-sm shadow-lg"
        >
          {pending.action.label} <strong className="font-mono">{pending.item.getAttribute('data-keynav-label') ?? ''}</strong>? Enter confirms, Escape cancels.
        </div>
      ) : null}
      {help || pending ? null : (
        <button
          type="button"
          data-testid="key-help-hint"
          onClick={() => setHelp(true)}
          className="fixed right-6 bottom-6 z-30 rounded-full border bg-background px-2.5 py-1 text-xs text-muted-foreground shadow-sm hover:text-foreground"
        >
          Press <kbd className="rounded border px-1 font-mono">?</kbd> for keys
        </button>
      )}
      {help ? (
        <div
          role="dialog"
          aria-label="Keyboard shortcuts"
          data-testid="key-help"
          className="fixed right-6 bottom-6 z-40 w-72 rounded-lg border bg-background p-4 text-sm shadow-lg"
        >
          <div className="mb-2 font-medium">Keys for {what}</div>
          <dl className="grid grid-cols-[2.5rem_1fr] gap-y-1">
            {[
              ['j', 'next'],
              ['k', 'previous'],
              ...actions.map((a) => [a.key, `${a.label}${a.confirm ? ' (asks first)' : ''}`]),
              ['?', 'show or hide this'],
            ].map(([key, label]) => (
              <div key={key} className="contents">
                <dt>
                  <kbd className={cn('rounded border px-1.5 font-mono text-xs')}>{key}</kbd>
                </dt>
                <dd>{label}</dd>
              </div>
            ))}
          </dl>
        </div>
      ) : null}
    </>
  );
}
