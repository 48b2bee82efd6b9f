/** The URL of a run's page. Run ids may hold any printable character (`/`, `?`, `#`, spaces), so the id is one encoded segment. */
export function runHref(runId: string): string {
  return `/runs/${encodeURIComponent(runId)}`;
}
