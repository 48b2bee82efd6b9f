/**
 * Text for a terminal from untrusted data. Model output, tool arguments and outputs can hold anything,
 * including escape sequences that would drive the operator's terminal, so every such string goes
 * through `clean` (controls, bidi overrides and invisible characters shown as \u escapes) and is cut to a
 * readable length unless the operator asks for everything (--full).
 *
 * Secrets are never printed: `json`, `quoted` and `--json` output (redactedJson) show a value the
 * redaction list names, a credential-looking string or an encrypted envelope as "•••• redacted"
 * (lib/durable/secrets/secret-fields.ts; GNL_SECRET_FIELDS adds names).
 */
import { createHash } from 'node:crypto';
import { hasHidden, jsonEscaped, terminalText } from '@/lib/text';
import { looksLikeApiKey, REDACTED, redactingReplacer, type SecretFields, secretFieldsFromEnv } from '@/lib/durable';

/** The redaction list, read again when GNL_SECRET_FIELDS changes (a program that embeds the command line may change it between commands). */
let fields: { names: string | undefined; fields: SecretFields } | undefined;
function redactor(): (key: string, value: unknown) => unknown {
  const names = process.env.GNL_SECRET_FIELDS;
  if (!fields || fields.names !== names) fields = { names, fields: secretFieldsFromEnv(process.env) };
  const redact = redactingReplacer(fields.fields);
  // A journaled bigint is written as `123n` (JSON has no bigint; JSON.stringify would throw on it), and
  // bytes (an image or file part) as what they are: JSON.stringify would spell a 10 MB image as an
  // object of ten million index keys.
  return (key, value) => redact(key, typeof value === 'bigint' ? `${value}n` : (bytesNote(value) ?? value));
}

/** `[10,485,760 bytes, sha256 1f2e3d4c5b6a7988…]` for bytes (a Uint8Array, an ArrayBuffer, a Buffer as its toJSON gives it); undefined otherwise. */
export function bytesNote(value: unknown): string | undefined {
  let bytes: Uint8Array | undefined;
  if (value instanceof Uint8Array) bytes = value;
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else if (isBufferJson(value)) bytes = Uint8Array.from(value.data);
  if (!bytes) return undefined;
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return `[${bytes.byteLength.toLocaleString('en-US')} bytes, sha256 ${digest}…]`;
}

function isBufferJson(value: unknown): value is { type: 'Buffer'; data: number[] } {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data);
}

/** JSON text of a value with its secrets redacted and its hidden characters as \u escapes (the CLI's --json output). */
export function redactedJson(value: unknown, indent?: number): string | undefined {
  const text = JSON.stringify(value, redactor(), indent);
  return text === undefined ? undefined : jsonEscaped(text);
}

export const DEFAULT_WIDTH = 240;

/**
 * Untrusted text made safe for a terminal: controls, bidi overrides and isolates, zero-width and other
 * invisible characters shown as \u escapes, newline and tab as \n and \t (the table the Studio marks
 * with: lib/text/visible-text.ts).
 */
export function clean(text: string): string {
  return terminalText(text);
}

/** Cuts to `max` characters, saying how much was left out. `max` undefined: everything. */
export function cut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters; --full shows all)`;
}

/**
 * Omitted: DEFAULT_WIDTH; given as undefined: no cut (--full). A default parameter would turn --full's
 * undefined back into DEFAULT_WIDTH, so the two are told apart by the arguments' count.
 */
const widthOf = (width: [max?: number]) => (width.length === 0 ? DEFAULT_WIDTH : width[0]);

/** A value as compact JSON, safe for a terminal, cut to `max` (see widthOf). */
export function json(value: unknown, ...width: [max?: number]): string {
  const max = widthOf(width);
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (redactedJson(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return cleanCut(text, max);
}

/**
 * `cut(clean(text), max)` without cleaning what is cut away: a long value (a base64 image) is cleaned only
 * as far as it is shown (clean only lengthens, so the first `max` characters cover what is shown).
 */
function cleanCut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return cut(clean(text), max);
  const shown = clean(text.slice(0, max)).slice(0, max);
  return `${shown}… (${text.length - max} more characters; --full shows all)`;
}

/** A string as a quoted, safe, cut text (`max`: see widthOf). */
export function quoted(text: string, ...width: [max?: number]): string {
  const max = widthOf(width);
  return `"${cut(clean(looksLikeApiKey(text) ? REDACTED : text), max)}"`;
}

/** `2026-11-29 21:32:46 UTC`. */
export function dateTime(value: Date | string | undefined): string {
  if (value === undefined) return '-';
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `21:32:46.312` (UTC). */
export function timeOfDay(date: Date): string {
  return date.toISOString().slice(11, 23);
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1_000) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1_000)} s`;
}

/**
 * A value as one shell word (run ids may hold spaces, quotes, anything printable), for the commands the
 * CLI suggests. One holding hidden characters (a run id may hold a bidi override) is an ANSI-C quoted
 * word, `$'a\u202eb'` (bash, zsh, ksh): shown with escapes, and pasted it is still the exact id.
 */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_.:@/%+=,-]+$/.test(value)) return value;
  if (!hasHidden(value) && !/[\n\t]/.test(value)) return `'${value.replaceAll("'", `'\\''`)}'`;
  const escapeChar = (c: string) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    if (c === '\n' || c === '\t') return c === '\n' ? '\\n' : '\\t';
    if (!hasHidden(c)) return c;
    const hex = (c.codePointAt(0) as number).toString(16);
    return hex.length > 4 ? `\\U${hex.padStart(8, '0')}` : `\\u${hex.padStart(4, '0')}`;
  };
  return `$'${[...value].map(escapeChar).join('')}'`;
}

/** Rows as aligned columns (the last column is not padded). */
export function table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd(),
  );
}
