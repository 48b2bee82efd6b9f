/**
 * A side effect whose execute returned has acted. When what it returned cannot be journaled (a cycle, a
 * function, over MAX_EVENT_BYTES) or sent to the model as JSON (a bigint, a throwing toJSON), its call is
 * still recorded as done: the `tool-call-end` carries this marker instead of the value, so the model is
 * told the work was performed (never that it failed, which makes a model ask again: a second refund),
 * and every replay returns the same marker. `preview` is what can be shown of the value: its JSON (what
 * generateText would have sent the model) or, when JSON cannot carry it or it is too large, Node's
 * inspection of it, cut at PREVIEW_CHARS. A read-only call's unreadable output stays its final tool error (journaled-tool.ts):
 * running it again is safe.
 */
import { inspect } from 'node:util';
import type { JournalEvent } from '../journal/events';
import type { RunSession } from '../run/run-session';
import { appendReadableEnd } from './model-json';

export const UNENCODABLE_OUTPUT = 'unencodable-output';

/** Most characters of a value kept in its marker's preview. */
export const PREVIEW_CHARS = 2_000;

export interface UnencodableOutput {
  gnl: typeof UNENCODABLE_OUTPUT;
  /** Always true: the marker stands only for the output of work that was done. */
  performed: true;
  /** Why the value itself was not kept (the journal's or JSON's refusal), at most PREVIEW_CHARS characters. */
  reason: string;
  /** The value as far as it can be shown, at most PREVIEW_CHARS characters. */
  preview: string;
}

/**
 * Records the end of a side effect that was performed (execute returned, or `check` said done): its
 * output as it is, or this marker when the model cannot read it or the journal cannot hold it. Returns
 * what was recorded, which replays return too.
 */
export async function appendPerformedEnd(args: {
  session: RunSession;
  tool: { toModelOutput?: unknown };
  end: Extract<JournalEvent, { type: 'tool-call-end' }>;
}): Promise<unknown> {
  const { session, tool, end } = args;
  const refused = await appendReadableEnd({ session, tool, end });
  if (!refused) return end.output;
  const marker = unencodableOutput(end.output, refused.message, refused.tooLarge !== undefined);
  await session.append({ ...end, output: marker });
  return marker;
}

/** The marker for `output`; `tooLarge` skips its JSON (Node's inspection reads only the start of a long string). */
export function unencodableOutput(output: unknown, reason: string, tooLarge = false): UnencodableOutput {
  return { gnl: UNENCODABLE_OUTPUT, performed: true, reason: cut(reason), preview: tooLarge ? cut(inspected(output)) : preview(output) };
}

export function isUnencodableOutput(value: unknown): value is UnencodableOutput {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { gnl?: unknown }).gnl === UNENCODABLE_OUTPUT &&
    (value as { performed?: unknown }).performed === true
  );
}

/**
 * The tool's own toModelOutput, except for a marker, which goes to the model as JSON: a converter
 * written for the tool's output type would misread it (or throw on every replay).
 */
export function markerAwareModelOutput<O extends { output: unknown }, R>(
  toModelOutput: (options: O) => R,
): (options: O) => R | { type: 'json'; value: UnencodableOutput } {
  return (options) => (isUnencodableOutput(options.output) ? { type: 'json', value: options.output } : toModelOutput(options));
}

function preview(output: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(output);
  } catch {
    // JSON cannot carry it (a cycle, a bigint): Node's inspection can, bounded.
  }
  return cut(text ?? inspected(output));
}

function cut(text: string): string {
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

function inspected(output: unknown): string {
  try {
    return inspect(output, { depth: 4, maxArrayLength: 50, maxStringLength: PREVIEW_CHARS, breakLength: Number.POSITIVE_INFINITY });
  } catch (error) {
    // A custom inspection that throws: the reason still says why the value was not kept.
    return `(a value that cannot be shown: ${error instanceof Error ? error.message : String(error)})`;
  }
}
