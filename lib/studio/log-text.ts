/**
 * Text that came from outside (a tool's error message, a model's text, a request's parameter) put into
 * one line of the server's log: control characters are written as escapes (`\n`, `\u0000`), so no input
 * can end a line and forge the next one (issue 34, finding 1).
 */
export function logText(value: unknown): string {
  const text = value instanceof Error ? value.message : typeof value === 'string' ? value : String(value);
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (char) =>
    char === '\n' ? '\\n' : char === '\r' ? '\\r' : char === '\t' ? '\\t' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
