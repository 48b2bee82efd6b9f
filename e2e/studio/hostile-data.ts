/**
 * Untrusted payloads the security spec journals (seed-hostile.ts) and then opens in a real browser: a
 * tool's arguments and output and a model's text are whatever a model or an outside system produced.
 * Each payload, if it ever ran, would set window.__gnlPwned or open a dialog; the spec checks neither
 * happens, that no javascript: link exists, that the text is shown as text, and that the page still
 * answers after 2.6 MB of huge strings and a 900-level JSON (the journal refuses deeper: MAX_JSON_DEPTH).
 */

/** Markup that runs script if a page ever renders it as HTML (or as a link, or in an attribute). */
export const SCRIPT_PAYLOADS = [
  "<script>window.__gnlPwned = 'script'; alert('script')</script>",
  "<img src=x onerror=\"window.__gnlPwned='img';alert('img')\">",
  "<svg onload=\"window.__gnlPwned='svg';alert('svg')\"></svg>",
  '"><iframe srcdoc="<script>parent.__gnlPwned=\'iframe\'</script>"></iframe>',
  "javascript:window.__gnlPwned='href';alert('href')",
  "[click me](javascript:window.__gnlPwned='markdown')",
  '<a href="javascript:window.__gnlPwned=\'anchor\'">open</a>',
] as const;

export const HOSTILE = {
  /** A completed run: a read-only tool with hostile, 900-level arguments and a huge output; huge hostile model text. */
  completed: { runId: 'security:<img src=x onerror="window.__gnlPwned=\'runid\'">' },
  /** Waiting for approval of a side effect whose arguments are hostile (so the inbox shows them too). */
  waiting: { runId: 'security:waiting <script>window.__gnlPwned=1</script>' },
  /**
   * Characters in each huge string: a tool output and a model text carry one each (the answer repeats
   * the text), 2.6 MB on one page. Each is over 64 KiB, so the journal stores it apart from its event
   * row (docs/large-payloads.md) and the page reads it back through the load's one query. The size is
   * what one page should render, not the journal's limit (MAX_EVENT_BYTES is 128 MiB now; it was 1 MiB
   * when the seed's first attempt found a 2 MB value refused).
   */
  hugeChars: 900 * 1024,
  /** Levels of the nested JSON. */
  depth: 900,
  /** Text a person sees on the page when a payload is shown as text. */
  visible: "<script>window.__gnlPwned = 'script'; alert('script')</script>",
} as const;

/** `{ "level": { "level": … { "end": "<script>…" } } }`, `depth` levels deep. */
export function nested(depth: number): unknown {
  let value: unknown = { end: SCRIPT_PAYLOADS[0] };
  for (let i = 0; i < depth; i++) value = { level: value };
  return value;
}

/** A huge one-line string that starts and ends with a payload. */
export function huge(chars: number): string {
  const head = SCRIPT_PAYLOADS[1];
  return `${head}${'A'.repeat(chars - 2 * head.length)}${head}`;
}
