/**
 * A run's journal as a file of JSON lines (`gnl export`, the Studio's Export), and back (`gnl import`).
 *
 * Line 1 is the header: the format and its version, the run, its agent and status, when it was exported,
 * how many events follow, the last sequence number, whether secrets are redacted, and the SHA-256 of
 * the event lines (each line's text and its newline), so a cut or edited file is refused. Then one line
 * per event in sequence order: `seq`, `at` (ISO 8601, the journal's clock) and `type` as the journal
 * stores them, `payload` as json-codec encodes it (Dates, bytes, bigints come back as they went in).
 * Values stored apart (docs/large-payloads.md) are inline: the journal's read resolves them.
 *
 * Secrets: by default every value the redaction list names, every credential-looking string and every
 * envelope is "•••• redacted", as the Studio shows it (secret-fields.ts). `revealSecrets` writes them
 * as the journal opens them; the caller audits that (the CLI: lib/accounts export-audit.ts).
 *
 * An import is all or nothing: every line is checked (zod, then the event's own schema) before the
 * journal is asked to write, and the journal writes in one transaction (Journal.importRun). A redacted
 * export is evidence, never a run to go on with: planImport appends a run-cancel after its events, so
 * neither an executor nor runDurable ever executes a tool for it.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { JournalDataError, RunTransferError } from '../errors';
import type { JournalEvent, RecordedEvent } from '../journal/events';
import { assertValidEvent } from '../journal/event-schemas';
import type { Journal } from '../journal/journal';
import { decodeJson, encodeJson } from '../journal/json-codec';
import { RunState } from '../projection/run-state';
import { RUN_STATUSES } from '../journal/run-status';
import { redactingReplacer, SecretFields } from '../secrets/secret-fields';

export const RUN_EXPORT_FORMAT = 'gnl-run-export';
export const RUN_EXPORT_VERSION = 1;

export const runExportHeaderSchema = z.strictObject({
  format: z.literal(RUN_EXPORT_FORMAT),
  version: z.literal(RUN_EXPORT_VERSION),
  runId: z.string().min(1),
  /** The run's agent (its start input's), or null for a run started without one. */
  agent: z.string().nullable(),
  /** The run's status when it was exported (the projection of the events that follow). */
  status: z.enum(RUN_STATUSES),
  exportedAt: z.iso.datetime({ offset: true }),
  eventCount: z.number().int().min(1),
  lastSeq: z.number().int().min(1),
  redacted: z.boolean(),
  /** SHA-256 (hex) of the event lines, each with its newline. */
  eventsSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type RunExportHeader = z.infer<typeof runExportHeaderSchema>;

const eventLineSchema = z.strictObject({
  seq: z.number().int().min(1),
  at: z.iso.datetime({ offset: true }),
  type: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
});

export interface RunExport {
  header: RunExportHeader;
  /** The header's line, then one per event; no newlines inside. */
  lines: string[];
}

export interface ExportRunOptions {
  /** The journal to read (its `events`). */
  journal: Pick<Journal, 'events'>;
  runId: string;
  /** Write secrets as the journal opens them (needs its key). Default false: redacted as the Studio shows them. */
  revealSecrets?: boolean;
  /** The redaction list. Default: the default list (give secretFieldsFromEnv(env) to add GNL_SECRET_FIELDS). */
  fields?: SecretFields;
  /** Default: now. */
  exportedAt?: Date;
}

/** The run's whole journal as export lines. A run with no events is RunTransferError 'unknown-run'. */
export async function exportRun(options: ExportRunOptions): Promise<RunExport> {
  const { journal, runId } = options;
  const events = await journal.events(runId);
  const last = events[events.length - 1];
  if (!last) throw new RunTransferError({ reason: 'unknown-run', runId, detail: `No run "${runId}" in this journal: nothing to export.` });
  const redacted = options.revealSecrets !== true;
  const replacer = redacted ? redactingReplacer(options.fields ?? new SecretFields()) : undefined;
  const eventLines = events.map((event) => eventLine(event, replacer));
  const state = new RunState(events);
  const header: RunExportHeader = {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    runId,
    agent: state.input?.agent ?? null,
    status: state.status ?? 'running',
    exportedAt: (options.exportedAt ?? new Date()).toISOString(),
    eventCount: events.length,
    lastSeq: last.seq,
    redacted,
    eventsSha256: linesDigest(eventLines),
  };
  return { header, lines: [JSON.stringify(header), ...eventLines] };
}

/** The export as the file's text: every line ends with a newline. */
export function exportText(exported: RunExport): string {
  return `${exported.lines.join('\n')}\n`;
}

function eventLine(event: RecordedEvent, replacer: ((key: string, value: unknown) => unknown) | undefined): string {
  const { type, seq, at, ...payload } = event;
  const payloadJson = JSON.stringify(encodeJson(payload, { strict: true }), replacer);
  return `{"seq":${seq},"at":${JSON.stringify(at.toISOString())},"type":${JSON.stringify(type)},"payload":${payloadJson}}`;
}

function linesDigest(lines: readonly string[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(`${line}\n`, 'utf8');
  return hash.digest('hex');
}

export interface ParsedRunExport {
  header: RunExportHeader;
  /** The events as the journal gave them: seq 1..n, each with its time. */
  events: RecordedEvent[];
}

/**
 * Reads an export's text. Every line is checked: JSON, the line's shape, the event's schema, sequence
 * numbers 1..n in order, a run-start first and only first, the header's counts and digest. The first
 * wrong line is RunTransferError 'invalid-line' naming it (1-based) and what is wrong.
 */
export function parseRunExport(text: string): ParsedRunExport {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const header = parseLine(lines[0] ?? '', 1, runExportHeaderSchema);
  const eventLines = lines.slice(1);
  const events = eventLines.map((line, i) => parseEvent(line, i + 2, i + 1));
  const end = lines.length + 1;
  if (events.length !== header.eventCount)
    throw invalid(end, `the header says ${header.eventCount} events and the file holds ${events.length}: the file is cut or was edited`);
  if (header.lastSeq !== header.eventCount) throw invalid(1, `lastSeq ${header.lastSeq} is not eventCount ${header.eventCount}`);
  if (linesDigest(eventLines) !== header.eventsSha256) throw invalid(1, 'eventsSha256 does not match the event lines: the file was edited or damaged');
  return { header, events };
}

function parseLine<S extends z.ZodType>(line: string, number: number, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    throw invalid(number, `not JSON (${(error as Error).message})`, error);
  }
  const result = schema.safeParse(json);
  if (!result.success) throw invalid(number, z.prettifyError(result.error).replaceAll('\n', ' '), result.error);
  return result.data;
}

function parseEvent(line: string, number: number, expectedSeq: number): RecordedEvent {
  const { seq, at, type, payload } = parseLine(line, number, eventLineSchema);
  if (seq !== expectedSeq) throw invalid(number, `seq ${seq} where ${expectedSeq} comes next: events must be in order, none missing`);
  if ((type === 'run-start') !== (seq === 1)) throw invalid(number, seq === 1 ? `the first event is ${type}, not run-start` : 'a second run-start');
  let event: JournalEvent;
  try {
    event = { ...decodeJson<object>(payload), type } as JournalEvent;
    assertValidEvent(event);
  } catch (error) {
    if (!JournalDataError.isInstance(error)) throw error;
    throw invalid(number, error.message.replace(/ Nothing was written\.$/, ''), error);
  }
  return { ...event, seq, at: new Date(at) } as RecordedEvent;
}

function invalid(line: number, detail: string, cause?: unknown): RunTransferError {
  return new RunTransferError({ reason: 'invalid-line', line, detail: `${detail}. Nothing was imported.`, ...(cause ? { cause } : {}) });
}

export interface ImportPlan {
  runId: string;
  events: RecordedEvent[];
  /** Appended after the events, in the same transaction, at the journal's clock. */
  then: JournalEvent[];
  /** The run is evidence only: canceled by `then` (or finished already), never executed again. */
  evidence: boolean;
  /** `then` cancels it (a redacted export of a run that had not finished). */
  cancels: boolean;
}

/**
 * What importing a parsed export writes. A redacted export cannot go on (its tool arguments are
 * redacted, and its run may have gone on elsewhere): unless it is finished already, a run-cancel by
 * `by` says so, and a canceled run never executes another tool, under runDurable or an executor.
 * `runId` (--as) imports it under another id: recorded idempotency keys stay as recorded, and a call it makes
 * after takes the key the exported run would make (call-identity.ts: the job is the exported run's).
 */
export function planImport(args: { parsed: ParsedRunExport; by: string; runId?: string }): ImportPlan {
  const { header, events } = args.parsed;
  const runId = args.runId ?? header.runId;
  const status = new RunState(events).status;
  const finished = status === 'completed' || status === 'canceled';
  const cancels = header.redacted && !finished;
  // The mark of where it came from first; then, for a redacted export of an unfinished run, its cancel.
  const then: JournalEvent[] = [
    { type: 'run-imported', from: { runId: header.runId, exportedAt: header.exportedAt, redacted: header.redacted }, by: args.by },
    ...(cancels
      ? [
          {
            type: 'run-cancel' as const,
            by: args.by,
            reason: `imported from a redacted export of run "${header.runId}" (${header.exportedAt}): evidence only, never resumed`,
          },
        ]
      : []),
  ];
  return { runId, events, then, evidence: header.redacted, cancels };
}
