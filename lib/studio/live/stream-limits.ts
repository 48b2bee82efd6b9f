/**
 * Bounds on the live event streams one Studio process keeps open (issue 34, finding 6): at most
 * GNL_STUDIO_MAX_STREAMS in all (default 200) and GNL_STUDIO_MAX_STREAMS_PER_OPERATOR for one operator
 * (default 24: a dozen tabs, each with a page stream and the nav's). Past either, a new stream is refused
 * with 429 and a reason; the browser's reconnect tries again later. A stream gives its place back when it
 * ends, however it ends. Process-wide (Next may load this module more than once).
 */
const key = Symbol.for('gnl.studio.streamLimits');
const scope = globalThis as Record<symbol, { total: number; byHolder: Map<string, number> } | undefined>;
scope[key] ??= { total: 0, byHolder: new Map() };
const counts = scope[key];

function limit(name: string, fallback: number, env: Record<string, string | undefined>): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : fallback;
}

export type StreamPlace = { release(): void } | { refused: string };

/** A place for one more stream of `holder` (an operator id), or why there is none. */
export function takeStreamPlace(holder: string, env: Record<string, string | undefined> = process.env): StreamPlace {
  const total = limit('GNL_STUDIO_MAX_STREAMS', 200, env);
  const perHolder = limit('GNL_STUDIO_MAX_STREAMS_PER_OPERATOR', 24, env);
  const held = counts.byHolder.get(holder) ?? 0;
  if (held >= perHolder) return { refused: `You have ${held} live streams open (the limit is ${perHolder}): close some tabs.` };
  if (counts.total >= total) return { refused: `This Studio has ${counts.total} live streams open (the limit is ${total}): try again shortly.` };
  counts.total += 1;
  counts.byHolder.set(holder, held + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      counts.total -= 1;
      const now = (counts.byHolder.get(holder) ?? 1) - 1;
      if (now <= 0) counts.byHolder.delete(holder);
      else counts.byHolder.set(holder, now);
    },
  };
}

/** Open streams now, in all and by holder (for tests and metrics). */
export function openStreams(): { total: number; byHolder: ReadonlyMap<string, number> } {
  return { total: counts.total, byHolder: counts.byHolder };
}
