/**
 * The Studio's reads about agent versions, for server components: the versions this deployment
 * registers, the version a run runs on (and whether it is pinned, taken over, or stranded), the runs a
 * deploy stranded (no registered version matches them) with the differences, and a migration's preview.
 * Server-only. Version decisions are the executor layer's (runVersion, previewMigration); this file only
 * shapes them for the page, every value as plain text (rendered with VisibleText, never as markup).
 */
import 'server-only';
import { registry } from '@/agents';
import { canonicalJson, type Divergence, GnlError, RunState, type RunStatus } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type MigrationPreview, previewMigration, runVersion } from '@/lib/executor';

export interface AgentVersionRow {
  name: string;
  version: string;
  current: boolean;
  onChange: 'continue' | 'pinned';
}

/** Every registered version, by agent, oldest first. */
export function listAgentVersions(): AgentVersionRow[] {
  return registry
    .listAgents()
    .flatMap((current) =>
      registry.listVersions(current.name).map((agent) => ({ name: agent.name, version: agent.version, current: agent === current, onChange: agent.onChange })),
    );
}

export interface RunVersionInfo {
  agent: string;
  /** The version it runs on: its start's, or its last migration's. */
  version: string | undefined;
  /** How the deployment continues it: on its own version, taken over by the current one, or not at all. */
  kind: 'pinned' | 'continues' | 'stranded';
  /** The version the deployment runs it on (pinned or continues), or the current one (stranded). */
  deployed: string;
  because: string[];
  lastMigration?: { from?: string; by: string; reason: string; at: string };
}

/** The version line of a run page; undefined for a run that names no registered agent. */
export async function loadRunVersion(runId: string): Promise<RunVersionInfo | undefined> {
  const state = new RunState(await storageFromEnv().runs.events(runId));
  const agent = state.input?.agent;
  if (!agent || !registry.hasAgent(agent)) return undefined;
  const chosen = await runVersion({ registry, state, runId });
  const last = state.migrations.at(-1);
  return {
    agent,
    version: state.agentVersion,
    kind: chosen.kind,
    deployed: chosen.agent.version,
    because: chosen.kind === 'stranded' ? chosen.because : [],
    ...(last
      ? { lastMigration: { ...(last.fromVersion ? { from: last.fromVersion } : {}), by: last.by, reason: last.reason, at: last.at.toISOString() } }
      : {}),
  };
}

export interface DifferenceText {
  field: string;
  recorded: string;
  given: string;
}

export interface StrandedRun {
  runId: string;
  status: RunStatus;
  agent: string;
  version: string | undefined;
  current: string;
  differences: DifferenceText[];
  because: string[];
  updatedAt: string;
}

/** Statuses of runs that can still go on (a failed run may be resumed too). */
const OPEN: readonly RunStatus[] = ['waiting-approval', 'waiting-tool-result', 'blocked', 'running', 'failed'];
/** Runs read per status: each is folded from its journal, so the page scans a bounded number. */
export const STRANDED_SCAN_LIMIT = 200;

/** Open runs of registered agents that no registered version continues, newest first; `more` when a status had more than the scan limit. */
export async function loadStrandedRuns(): Promise<{ runs: StrandedRun[]; scanned: number; more: boolean }> {
  const journal = storageFromEnv().runs;
  const runs: StrandedRun[] = [];
  let scanned = 0;
  let more = false;
  for (const status of OPEN) {
    const page = await journal.listRuns({ status, limit: STRANDED_SCAN_LIMIT });
    more ||= page.nextCursor !== undefined;
    for (const run of page.runs) {
      if (!run.input.agent || !registry.hasAgent(run.input.agent)) continue;
      scanned++;
      const state = new RunState(await journal.events(run.runId));
      const chosen = await runVersion({ registry, state, runId: run.runId });
      if (chosen.kind !== 'stranded') continue;
      runs.push({
        runId: run.runId,
        status: run.status,
        agent: run.input.agent,
        version: state.agentVersion,
        current: chosen.agent.version,
        differences: chosen.differences.map(differenceText),
        because: chosen.because,
        updatedAt: run.updatedAt.toISOString(),
      });
    }
  }
  runs.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { runs, scanned, more };
}

/** A migration's preview for the page, or the refusal's message (an unknown run, a finished one, an unregistered version). */
export async function loadMigrationPreview(
  runId: string,
  to: string | undefined,
): Promise<{ ok: true; preview: MigrationPreview } | { ok: false; message: string }> {
  try {
    return { ok: true, preview: await previewMigration(runId, { registry, ...(to ? { to } : {}) }) };
  } catch (error) {
    if (GnlError.isInstance(error)) return { ok: false, message: error.message };
    throw error;
  }
}

/** A difference as text: a string as it is, anything else as canonical JSON, each cut at 2000 characters. */
export function differenceText(difference: Divergence): DifferenceText {
  const text = (value: unknown) => {
    const shown = typeof value === 'string' ? value : value === undefined ? '(none)' : canonicalJson(value);
    return shown.length > 2000 ? `${shown.slice(0, 2000)}…` : shown;
  };
  return { field: difference.field, recorded: text(difference.recorded), given: text(difference.given) };
}
