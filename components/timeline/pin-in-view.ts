/**
 * Scrolls to an element and keeps it at the top of the viewport while the page settles around it:
 * - events skip layout while off-screen (content-visibility) and are laid out at their estimated height,
 *   so the ones coming into view above the target change size once;
 * - blocks above the timeline change after the scroll (the run's actions go when it finishes, the demo
 *   counters grow a row per new key), which would carry the target out of view.
 * It re-places the element every frame for a few frames, then whenever the run view changes size, until
 * the person scrolls, types or clicks, or the page has been still for `ms` (each change starts the wait
 * again: on a loaded machine the counters above can grow seconds after the scroll), and at most
 * `maxMs` in all.
 */
const SETTLE_FRAMES = 12;
const INPUT_EVENTS = ['wheel', 'touchstart', 'keydown', 'pointerdown'] as const;

export function pinInView(
  element: HTMLElement,
  { ms = 5_000, maxMs = 30_000, within }: { ms?: number; maxMs?: number; within?: Element | null } = {},
): () => void {
  const controller = new AbortController();
  const place = () => {
    if (!controller.signal.aborted && element.isConnected) element.scrollIntoView({ block: 'start' });
  };
  place();
  let frames = 0;
  const settle = () => {
    if (controller.signal.aborted) return;
    place();
    if (++frames < SETTLE_FRAMES) requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
  let quiet: ReturnType<typeof setTimeout> | undefined;
  let cap: ReturnType<typeof setTimeout> | undefined;
  const waitForQuiet = () => {
    clearTimeout(quiet);
    quiet = setTimeout(stop, ms);
  };
  const observer = new ResizeObserver(() => {
    place();
    waitForQuiet();
  });
  const container = within ?? element.parentElement;
  if (container) {
    observer.observe(container);
    for (const child of Array.from(container.children)) observer.observe(child);
  }
  function stop() {
    controller.abort();
    observer.disconnect();
    clearTimeout(quiet);
    clearTimeout(cap);
  }
  for (const type of INPUT_EVENTS) window.addEventListener(type, stop, { once: true, passive: true, signal: controller.signal });
  waitForQuiet();
  cap = setTimeout(stop, maxMs);
  return stop;
}
