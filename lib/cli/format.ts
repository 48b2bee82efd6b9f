/**
 * Text for a terminal from untrusted data. Model output, tool arguments and outputs can hold anything,
 * including escape sequences that would drive the operator's terminal, so every such string goes
 * through `clean` (control and bidirectional-override characters shown as \u escapes) and is cut to a
 * readable length unless the operator asks for everything (--full).
 *
 * Secrets are never printed: `json`, `quoted` and `--json` output (redactedJson) show a value the
 * redaction list names, a credential-looking string or an encrypted envelope as "•••• redacted"
 * (lib/durable/secret-fields.ts; GNL_SECRET_FIELDS adds names).
 */
import { looksLikeApiKey, REDACTED, redactingReplacer, type SecretFields, secretFieldsFromEnv } from '@/lib/durable';

let fields: SecretFields | undefined;
function redactor(): (key: string, value: unknown) => unknown {
  fields ??= secretFieldsFromEnv(process.env);
  const redact = redactingReplacer(fields);
  // A journaled bigint is written as `123n` (JSON has no bigint; JSON.stringify would throw on it).
  return (key, value) => redact(key, typeof value === 'bigint' ? `${value}n` : value);
}

/** JSON text of a value with its secrets redacted (the CLI's --json output). */
export function redactedJson(value: unknown, indent?: number): string | undefined {
  return JSON.stringify(value, redactor(), indent);
}

// C0 and C1 controls (ESC, CSI…), and the characters that reorder text on screen (bidi overrides, isolates).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what must not reach a terminal
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export const DEFAULT_WIDTH = 240;

export function clean(text: string): string {
  return text.replace(UNSAFE, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/** Cuts to `max` characters, saying how much was left out. `max` undefined: everything. */
export function cut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters; --full shows all)`;
}

/** A value as compact JSON, safe for a terminal, cut to `max`. */
export function json(value: unknown, max: number | undefined = DEFAULT_WIDTH): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (redactedJson(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return cut(clean(text), max);
}

/** A string as a quoted, safe, cut text. */
export function quoted(text: string, max: number | undefined = DEFAULT_WIDTH): string {
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

/** A value as one shell word (run ids may hold spaces, quotes, anything printable), for the commands the CLI suggests. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_.:@/%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
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
