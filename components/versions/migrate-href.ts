/** The Studio's migration preview page for a run and a target version (query parameters: any run id round-trips). */
export function migrateHref(runId: string, to: string): string {
  return `/versions/migrate?${new URLSearchParams({ run: runId, to }).toString()}`;
}
