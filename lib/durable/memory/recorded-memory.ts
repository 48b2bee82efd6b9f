/**
 * What a run was given from memory, as its start input recorded it (run-memory.ts):
 * whose memory, which thread, how many messages, and each recalled item with its score. The recalled
 * items' texts are read back from the recall message the run was given (one line per item, in the
 * same order, each opening with its kind, date and similarity: run-memory.ts's recallText): the record
 * the model saw, not the store as it is now (retention or an erasure may have taken the items since).
 * What the Studio's run page and `gnl show` print. Browser-safe.
 */
import type { RunInput } from '../journal/events';

export interface RecalledView {
  id: number;
  kind: string;
  score: number;
  /** The text the run was given; undefined when the record cannot be read back (an erased run's). */
  text?: string;
}

export interface RunMemoryView {
  resource: string;
  thread: string;
  /** Messages of the thread given to the run (the recall message not counted). */
  messages: number;
  recalled: RecalledView[];
}

const RECALL_LINE = /^- \((message|fact), \d{4}-\d{2}-\d{2}, similarity -?\d+\.\d{2}\) /gm;

export function runMemoryView(input: RunInput | undefined): RunMemoryView | undefined {
  const memory = input?.memory;
  if (!memory) return undefined;
  const messages = Array.isArray(memory.messages) ? (memory.messages as { role?: unknown; content?: unknown }[]) : [];
  const recalledRecord = memory.recalled ?? [];
  const recallMessage = recalledRecord.length > 0 ? messages.find((m) => m.role === 'system' && typeof m.content === 'string') : undefined;
  const texts = recallMessage ? recallTexts(recallMessage.content as string, recalledRecord.length) : undefined;
  return {
    resource: memory.resource,
    thread: memory.thread,
    messages: messages.filter((m) => m !== recallMessage).length,
    recalled: recalledRecord.map((item, index) => ({ id: item.id, kind: item.kind, score: item.score, ...(texts ? { text: texts[index] } : {}) })),
  };
}

/** The item texts of a recall message, in order; undefined unless there is exactly one line opening per item. */
function recallTexts(content: string, count: number): string[] | undefined {
  const starts = [...content.matchAll(RECALL_LINE)];
  if (starts.length !== count) return undefined;
  return starts.map((match, i) => {
    const from = (match.index ?? 0) + match[0].length;
    const to = i + 1 < starts.length ? (starts[i + 1]?.index ?? content.length) - 1 : content.length;
    return content.slice(from, to);
  });
}
