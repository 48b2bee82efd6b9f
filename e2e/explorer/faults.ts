/**
 * The world's faults a schedule draws besides its SIGKILLs (issue 11). A schedule is a scenario, its
 * kill points and one `Faults` value, all drawn from the schedule's own seed, so a seed replays it:
 * - provider: the model server's answer per `${step}:${attempt}` (model-server.ts): 429, 500, 503 the
 *   SDK retries, a reset connection it retries after its backoff, an answer over the event limit, three
 *   in a row that outlast the retries;
 * - ids: the tool call ids providers produce (the script's, random per response, `call_0…` per response);
 * - operators: approve, reject, resolve, cancel, requestResume sent by the child at a boundary of one
 *   invocation, through the operator API (a second Postgres connection; PGlite's own storage);
 * - database: the hold's Postgres session terminated (pg_terminate_backend) inside a side effect;
 * - stream: the run is streamed (streamDurable over the provider's server-sent events) instead of
 *   generated; a `reset` then cuts the answer mid-stream, after its first half was sent.
 * - versions: on the agent scenarios, an operator migrates the run to another version or forks it
 *   (versions.ts), before a resume, racing a live process at a boundary, or once the run is done.
 * - events: on the workflow scenarios with an event, the schedule sends it (one event id) at a boundary of a
 *   process, racing the run's wait, or before a process runs; besides these it is always sent, twice under
 *   its id, once the run waits for it.
 * Scenario families (scenarios.ts) choose which agents run: base, shapes, tools, replay, versions, workflows.
 */
import type { JournalKind } from './protocol';
import { describeVersionOps, drawVersionOps, type VersionOp } from './versions';

export const FAULT_FAMILIES = ['kills', 'provider', 'ids', 'operators', 'database', 'stream', 'versions', 'events'] as const;
export type FaultFamily = (typeof FAULT_FAMILIES)[number];

export type ProviderFault = '429' | '500' | '503' | 'reset' | 'oversize';
export type IdMode = 'script' | 'random' | 'sequential';
export const OPERATOR_ACTIONS = ['approve', 'reject', 'resolve', 'cancel', 'resume'] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** An operator request the child sends at boundary `boundary` (0-based, of that process) of invocation `invocation`. */
export interface OperatorRace {
  invocation: number;
  boundary: number;
  action: OperatorAction;
}

/** A send of a workflow scenario's event: at boundary `boundary` (0-based) of invocation `invocation`, or before it runs. */
export interface EventSend {
  invocation: number;
  boundary: number | 'before';
}

export interface Faults {
  provider: Record<string, ProviderFault>;
  ids: IdMode;
  races: OperatorRace[];
  /** Postgres: the explorer terminates the hold's session at the first in-execute boundary of this invocation. */
  terminateHold?: { invocation: number };
  /** Every process of the schedule streams the run (streamDurable) instead of generating it. */
  stream?: boolean;
  /** Agent scenarios: the operator's migrations and forks (versions.ts). */
  versions?: VersionOp[];
  /** Workflow scenarios with an event: when the schedule sends it besides once the run waits for it. */
  events?: EventSend[];
}

export const NO_FAULTS: Faults = { provider: {}, ids: 'script', races: [] };

export function drawFaults(args: {
  random: () => number;
  /** Model steps of the scenario's script. */
  steps: number;
  /** Boundaries of the scenario's census. */
  boundaries: number;
  families: ReadonlySet<FaultFamily>;
  journal: JournalKind;
  /** An agent scenario (versions.ts), and its kills: where migrations and forks can land. */
  agent?: { kills: number };
}): Faults {
  const { random, steps, boundaries, families } = args;
  const pick = (n: number) => Math.floor(random() * n);
  const faults: Faults = { provider: {}, ids: 'script', races: [] };
  if (families.has('provider') && random() < 0.6) {
    const transient: ProviderFault[] = ['429', '500', '503'];
    if (random() < 0.2) {
      // Three in a row on one step: more than generateText's two retries.
      const step = pick(steps);
      for (let attempt = 1; attempt <= 3; attempt++) faults.provider[`${step}:${attempt}`] = transient[pick(3)] as ProviderFault;
    } else {
      for (let n = 1 + pick(2); n > 0; n--) {
        const r = random();
        const fault: ProviderFault = r < 0.08 ? 'reset' : r < 0.25 ? 'oversize' : (transient[pick(3)] as ProviderFault);
        // Oversize answers carry tool calls: on a step that asks for them (every step but the last, the final text).
        const step = fault === 'oversize' ? pick(Math.max(1, steps - 1)) : pick(steps);
        faults.provider[`${step}:${1 + pick(2)}`] = fault;
      }
    }
  }
  if (families.has('ids')) faults.ids = (['script', 'random', 'sequential'] as const)[pick(3)] as IdMode;
  if (families.has('operators') && random() < 0.6) {
    for (let n = 1 + pick(2); n > 0; n--) {
      faults.races.push({ invocation: pick(3), boundary: pick(boundaries + 2), action: OPERATOR_ACTIONS[pick(OPERATOR_ACTIONS.length)] as OperatorAction });
    }
  }
  if (families.has('database') && args.journal === 'postgres' && random() < 0.3) faults.terminateHold = { invocation: pick(2) };
  // Drawn last, so the draws above (and the schedules of seeds logged before it) stay as they were.
  if (families.has('stream') && random() < 0.5) faults.stream = true;
  if (families.has('versions') && args.agent) faults.versions = drawVersionOps(random, boundaries, args.agent.kills);
  return faults;
}

export function hasFaults(f: Faults): boolean {
  return (
    Object.keys(f.provider).length > 0 ||
    f.ids !== 'script' ||
    f.races.length > 0 ||
    f.terminateHold !== undefined ||
    f.stream === true ||
    (f.versions?.length ?? 0) > 0 ||
    (f.events?.length ?? 0) > 0
  );
}

/** `provider 0:1=429,1:1=oversize; ids sequential; operators approve@1.3; terminate-hold@0`. */
export function describeFaults(f: Faults): string {
  const parts: string[] = [];
  const provider = Object.entries(f.provider);
  if (provider.length) parts.push(`provider ${provider.map(([at, fault]) => `${at}=${fault}`).join(',')}`);
  if (f.ids !== 'script') parts.push(`ids ${f.ids}`);
  if (f.races.length) parts.push(`operators ${f.races.map((r) => `${r.action}@${r.invocation}.${r.boundary}`).join(',')}`);
  if (f.terminateHold) parts.push(`terminate-hold@${f.terminateHold.invocation}`);
  if (f.stream) parts.push('streamed');
  if (f.versions?.length) parts.push(`versions ${describeVersionOps(f.versions)}`);
  if (f.events?.length) parts.push(`events ${f.events.map((e) => `${e.invocation}.${e.boundary}`).join(',')}`);
  return parts.join('; ') || 'none';
}
