/**
 * The inbox as one run's new summary leaves it, at once (browser-safe): the live runs hook applies it
 * to the cached inbox before the inbox is re-read, so a card decided in another tab or by another
 * operator stops offering its choices the moment the journal says so, not after the re-read.
 *
 * A run's summary lists what it waits for (`pending`, each with the decision taken since it suspended).
 * An item the run no longer lists leaves; a listed one takes its decision. Items a run newly waits for
 * are the re-read's to add: only the server knows their goal, steps and evidence.
 */
import type { Inbox, InboxItem } from './inbox';
import type { WireRun } from './wire';

export function inboxAfterRunChange(inbox: Inbox, run: Pick<WireRun, 'runId' | 'status' | 'updatedAt' | 'pending'>): Inbox {
  if (!inbox.items.some((entry) => entry.run.runId === run.runId)) return inbox;
  const items = inbox.items.flatMap((entry): InboxItem[] => {
    if (entry.run.runId !== run.runId) return [entry];
    const listed = run.pending.find((p) => p.toolCallId === entry.item.toolCallId && p.kind === entry.item.kind);
    if (!listed) return [];
    const decision = listed.decision ?? entry.item.decision;
    return [{ ...entry, run: { ...entry.run, status: run.status, updatedAt: run.updatedAt }, item: { ...entry.item, ...(decision ? { decision } : {}) } }];
  });
  return { ...inbox, items };
}

/**
 * The inbox's two parts: what waits for a decision (cards with choices), and what was decided but waits
 * to resume (no choices: the decision is recorded; only a resume is left). `settled` are cards this tab
 * decided (or learned were decided) before the journal's answer reached the cache: they leave at once.
 */
export function inboxParts(items: readonly InboxItem[], settled: ReadonlySet<string> = new Set()): { open: InboxItem[]; decided: InboxItem[] } {
  const open: InboxItem[] = [];
  const decided: InboxItem[] = [];
  for (const entry of items) {
    if (entry.item.decision) decided.push(entry);
    else if (!settled.has(inboxKey(entry))) open.push(entry);
  }
  return { open, decided };
}

/** One card's identity: the run and the call (a call waits for one thing at a time). */
export function inboxKey(entry: Pick<InboxItem, 'run' | 'item'>): string {
  return `${entry.run.runId}:${entry.item.toolCallId}`;
}
