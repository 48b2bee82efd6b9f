/**
 * The `wf` a workflow function is given: its primitives, each journaled once and replayed from the record.
 * A workflow is run from the top on every invocation; each primitive it calls takes the next id (`wf-0`,
 * `wf-1`, … in call order) and answers from what the journal holds under that id, or does its work now:
 *
 *   step       a unit of work, through the one door (tools/journaled-tool.ts) as a tool call named by the
 *              step: read-only ones are journaled once they return (retried with backoff while they throw);
 *              side effects (`sideEffect: true`) have their start durable before they run, run at most once,
 *              and an unknown outcome stops the run for a person (the gate's rule, tools/tool-gate.ts), as
 *              `check`, `retrySafe`, `idempotency` and `needsApproval` say, exactly as for an agent's tool;
 *   sleep      a durable timer: recorded with its end instant, the run suspends (status `waiting`) holding no
 *              worker, and any executor wakes it then (the queue's timer, executor/next-wake.ts);
 *   waitForEvent  the first event of that name sent to the run (journal.sendEvent) that no wait took yet and
 *              that matches, even one sent before the wait; or `{ timedOut: true }` past the deadline;
 *   child/all  child runs (an agent's or a workflow's) with a parent link, started at most `concurrency` at a
 *              time; the parent waits holding no worker and is woken as each settles;
 *   now/random deterministic values: a step, so a replay sees the first invocation's.
 * A primitive whose recorded kind or name differs from the call is a divergence (RunDivergedError, naming the
 * step): the workflow's code changed its order, and the record cannot be trusted to mean the same.
 */
import { tool } from 'ai';
import { z } from 'zod';
import { ChildRunFailedError, type Divergence, RunDivergedError, StepRejectedError, WorkflowInputError } from '../errors';
import type { JournalEvent, WorkflowWait } from '../journal/events';
import type { Journal } from '../journal/journal';
import type { WorkflowEventRecord } from '../projection/run-state';
import type { RunSession } from '../run/run-session';
import { gnlTool } from '../tools/gnl-tool';
import type { StepContext, StepOptions } from './step-options';
import { callThroughDoor } from '../tools/journaled-tool';
import { toolGate } from '../tools/tool-gate';
import { type ChildOutcome, type ChildRef, type ChildSpec, type ChildStarter, childRef, readChild } from './child-runs';
import { noMemory, WorkflowMemory, type WorkflowMemoryOptions } from './workflow-memory';
import { parseEventPayload } from './event-payload';

/** What a step's function is given. */
export type EventResult<PAYLOAD> = { timedOut: false; eventId: string; payload: PAYLOAD; sentAt: string; by: string } | { timedOut: true };

export interface WaitForEventOptions {
  /** Give up after this many milliseconds (from when the wait was first recorded), or at this instant. Default: wait forever. */
  timeoutMs?: number;
  timeoutAt?: Date | string;
  /** Only an event whose payload has these fields with these values (compared as JSON). */
  match?: Record<string, unknown>;
}

export interface FanOutOptions {
  /** Children running at once (default 4); the next starts as one settles. */
  concurrency?: number;
  /** 'throw' (default): once a child fails or is canceled no other starts, and when the running ones settle the step throws ChildRunFailedError; 'collect': all run, the outcomes are returned. */
  onFailure?: 'throw' | 'collect';
}

/** Thrown through the workflow's code when the run must wait (a time, an event, children, a person): never the workflow's to catch. */
export class WorkflowSuspended extends Error {
  override name = 'WorkflowSuspended';
}

type Recorded = { kind: 'step' | WorkflowWait['kind']; name: string };

export class WorkflowContext {
  /** The run's id. */
  readonly runId: string;
  private count = 0;
  /** Waits recorded by this invocation's suspend (their workflow-wait rides with the run-suspend). */
  readonly waiting: { waitId: string; name: string; wait: WorkflowWait; record?: JournalEvent }[] = [];
  /** Primitives in progress: the invocation settles only when none is (a parallel branch may still run). */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** The events this invocation's waits took (each delivered to one wait at most, also between parallel waits). */
  private readonly takenEvents = new Set<string>();
  /** The child runs this invocation's children waits name, each by its wait's id (refuseTakenChildren). */
  private readonly childIds = new Map<string, string>();

  constructor(
    private readonly args: {
      session: RunSession;
      journal: Journal;
      /** The workflow's declared events and their payload schemas. */
      events: Readonly<Record<string, z.ZodType>>;
      children: ChildStarter | undefined;
      /** The job's first run (children's ids are made from it). */
      jobRoot: () => Promise<string>;
      clock: () => number;
      /** Asked before a primitive does new work (the executor's stop at a step boundary). */
      beforeNewWork: (() => void | Promise<void>) | undefined;
      /** The resource whose memory `wf.memory` reads and writes (runWorkflow's `memory`). */
      memory?: WorkflowMemoryOptions | undefined;
    },
  ) {
    this.runId = args.session.runId;
  }

  private memoryOf: WorkflowMemory | undefined;

  /** The run's memory (workflow-memory.ts): recall, remember, working memory, each a step through the door. Refused on a run given none. */
  get memory(): WorkflowMemory {
    if (!this.args.memory) return noMemory();
    this.memoryOf ??= new WorkflowMemory(this.args.memory, (name, options, run) => this.step(name, options, run), this.runId);
    return this.memoryOf;
  }

  /** How many primitives the workflow called in this invocation. */
  get called(): number {
    return this.count;
  }

  /** Resolves once no primitive is in progress. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** A unit of work journaled once (see the file's comment). */
  step<OUTPUT>(name: string, run: (ctx: StepContext<null>) => OUTPUT | Promise<OUTPUT>): Promise<OUTPUT>;
  step<INPUT, OUTPUT>(name: string, options: StepOptions<INPUT, OUTPUT>, run: (ctx: StepContext<INPUT>) => OUTPUT | Promise<OUTPUT>): Promise<OUTPUT>;
  step(name: string, a: unknown, b?: unknown): Promise<unknown> {
    const options = (typeof a === 'function' ? {} : a) as StepOptions<unknown, unknown>;
    const run = (typeof a === 'function' ? a : b) as (ctx: StepContext<unknown>) => unknown;
    const id = this.nextId();
    return this.track(this.runStep(id, name, options, run));
  }

  /** The time now, journaled once (a replay sees the first invocation's). */
  now(): Promise<Date> {
    const id = this.nextId();
    return this.track(this.runStep(id, 'now', {}, () => this.args.clock()).then((ms) => new Date(ms as number)));
  }

  /** A random number in [0, 1), journaled once. */
  random(): Promise<number> {
    const id = this.nextId();
    return this.track(this.runStep(id, 'random', {}, () => Math.random()) as Promise<number>);
  }

  /** A durable sleep for `ms` milliseconds from when it is first recorded. */
  sleep(name: string, ms: number): Promise<void> {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new WorkflowInputError({ what: `wf.sleep("${name}")`, problems: ['ms: a number of milliseconds >= 0'] });
    const id = this.nextId();
    return this.track(this.runSleep(id, name, () => this.args.clock() + ms));
  }

  /** A durable sleep until `at`. */
  sleepUntil(name: string, at: Date | string): Promise<void> {
    const until = instantOf(at);
    if (!Number.isFinite(until)) throw new WorkflowInputError({ what: `wf.sleepUntil("${name}")`, problems: ['at: a Date or an ISO 8601 instant'] });
    const id = this.nextId();
    return this.track(this.runSleep(id, name, () => until));
  }

  /** Waits for an event sent to the run (journal.sendEvent); a timed-out wait is `{ timedOut: true }`. */
  waitForEvent<PAYLOAD = unknown>(event: string, options: WaitForEventOptions = {}): Promise<EventResult<PAYLOAD>> {
    const problems: string[] = [];
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs >= 0))
      problems.push('timeoutMs: a number of milliseconds >= 0');
    if (options.timeoutAt !== undefined && !Number.isFinite(instantOf(options.timeoutAt))) problems.push('timeoutAt: a Date or an ISO 8601 instant');
    if (problems.length > 0) throw new WorkflowInputError({ what: `wf.waitForEvent("${event}")`, problems });
    const id = this.nextId();
    return this.track(this.runWaitForEvent(id, event, options) as Promise<EventResult<PAYLOAD>>);
  }

  /** Runs one child (an agent or a workflow) and returns its output; ChildRunFailedError if it fails or is canceled. */
  async child<OUTPUT = unknown>(name: string, spec: ChildSpec): Promise<OUTPUT> {
    const [outcome] = await this.all(name, [spec], { concurrency: 1, onFailure: 'throw' });
    return (outcome as Extract<ChildOutcome, { status: 'completed' }>).output as OUTPUT;
  }

  /** Fan-out and fan-in: every child's outcome, in the order given (see FanOutOptions for the failure policy). */
  all(name: string, specs: readonly ChildSpec[], options: FanOutOptions = {}): Promise<ChildOutcome[]> {
    const concurrency = options.concurrency ?? 4;
    const problems: string[] = [];
    if (!Array.isArray(specs)) problems.push('children: an array of child specs');
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) problems.push('concurrency: a whole number >= 1');
    if (options.onFailure !== undefined && options.onFailure !== 'throw' && options.onFailure !== 'collect') problems.push("onFailure: 'throw' or 'collect'");
    if (problems.length > 0) throw new WorkflowInputError({ what: `wf.all("${name}")`, problems });
    const id = this.nextId();
    // No children (a fan-out over an empty list): nothing to start or wait for, as Promise.all([]); the id is
    // still taken, so the numbering of the primitives after it does not depend on the list's length.
    if (specs.length === 0) return Promise.resolve([]);
    return this.track(this.runChildren(id, name, specs, { concurrency, onFailure: options.onFailure ?? 'throw' }));
  }

  private nextId(): string {
    return `wf-${this.count++}`;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const untrack = () => this.inFlight.delete(work);
    work.then(untrack, untrack);
    return work;
  }

  private get state() {
    return this.args.session.state;
  }

  /** What the journal holds under `id`, if anything: a step (a tool call or its approval question) or a wait. */
  private recorded(id: string): Recorded | undefined {
    const op = this.state.operationOfCall(id);
    if (op) return { kind: 'step', name: op.toolName };
    const approval = this.state.approvals.get(id);
    if (approval) return { kind: 'step', name: approval.toolName };
    const wait = this.state.workflowWaits.get(id);
    if (wait) return { kind: wait.wait.kind, name: wait.name };
    return undefined;
  }

  /** Refuses a call that is not what was recorded under its id; asks the stop check before new work. */
  private async expect(id: string, kind: Recorded['kind'], name: string): Promise<Recorded | undefined> {
    this.stopIfStopped(name);
    const recorded = this.recorded(id);
    if (recorded && (recorded.kind !== kind || recorded.name !== name)) throw divergence(this.runId, id, recorded, { kind, name });
    if (!recorded) await this.args.beforeNewWork?.();
    return recorded;
  }

  /**
   * Nothing more runs once the run must stop: a side effect blocked (its outcome unknown), the job's work found
   * started in another run (SideEffectElsewhereError), a retry-safe side effect out of retries (ToolCallFailedError:
   * it may have acted; a resume sends it again under its key), a journal failure. The workflow's code may
   * catch the step's stop (a try/catch around it, a fallback step after): each primitive it calls then stops
   * again, so no fallback charge or child runs on a guess; the run suspends or fails as the stop says.
   */
  private stopIfStopped(name: string): void {
    const { session } = this.args;
    if (session.fatal !== undefined) throw session.fatal;
    if (session.failure !== undefined) throw session.failure;
    if (session.blocked.length > 0) throw new WorkflowSuspended(`"${name}" not run: the run is blocked for a person (a side effect's outcome is unknown)`);
  }

  private async runStep(id: string, name: string, options: StepOptions<unknown, unknown>, run: (ctx: StepContext<unknown>) => unknown): Promise<unknown> {
    const { session } = this.args;
    await this.expect(id, 'step', name);
    const { input = null, sideEffect, retrySafe, check, lookup, idempotency, needsApproval, maxRetries, retryDelayMs } = options;
    const runId = this.runId;
    const stepTool = gnlTool(
      tool({
        description: `workflow step ${name}`,
        inputSchema: z.unknown(),
        execute: async (given: unknown, callOptions: { idempotencyKey?: string }) =>
          run({ input: given, idempotencyKey: callOptions.idempotencyKey ?? '', runId }),
      }),
      {
        ...(sideEffect ? { sideEffect } : {}),
        ...(retrySafe ? { retrySafe } : {}),
        ...(check ? { check } : {}),
        ...(lookup ? { lookup } : {}),
        ...(idempotency ? { idempotency } : {}),
        ...(needsApproval ? { needsApproval } : {}),
        ...(maxRetries !== undefined ? { maxRetries } : {}),
        ...(retryDelayMs !== undefined ? { retryDelayMs } : {}),
      },
    );
    const gate = toolGate({ session, tools: { [name]: stepTool }, userToolApproval: undefined });
    const verdict = (await gate({ toolCall: { toolCallId: id, toolName: name, input }, messages: [] })) as { type: string; reason?: string };
    if (verdict.type === 'denied') throw new StepRejectedError({ runId, step: name, ...(verdict.reason ? { reason: verdict.reason } : {}) });
    // Not to run now: waiting for an approval or for a person to settle an unknown outcome (the gate listed it), or canceled.
    if (verdict.type === 'user-approval') throw new WorkflowSuspended(`step "${name}" waits for a person`);
    try {
      return await callThroughDoor({ session, toolName: name, tool: stepTool, toolCallId: id, input });
    } catch (error) {
      if (session.blocked.length > 0) throw new WorkflowSuspended(`step "${name}" has an unknown outcome`, { cause: error });
      if (session.failure !== undefined) throw session.failure;
      throw error;
    }
  }

  private async runSleep(id: string, name: string, until: () => number): Promise<void> {
    const { session } = this.args;
    await this.expect(id, 'sleep', name);
    const recorded = this.state.workflowWaits.get(id);
    if (recorded?.end) return;
    const wait: WorkflowWait = recorded?.wait ?? { kind: 'sleep', until: new Date(until()).toISOString() };
    const record: JournalEvent | undefined = recorded ? undefined : { type: 'workflow-wait', waitId: id, name, wait };
    if (wait.kind === 'sleep' && this.args.clock() >= Date.parse(wait.until)) {
      await session.append(...(record ? [record] : []), { type: 'workflow-wait-end', waitId: id, outcome: 'elapsed' });
      return;
    }
    this.suspendOn(id, name, wait, record);
  }

  private async runWaitForEvent(id: string, event: string, options: WaitForEventOptions): Promise<EventResult<unknown>> {
    const { session, journal, events } = this.args;
    await this.expect(id, 'event', event);
    const recorded = this.state.workflowWaits.get(id);
    if (recorded?.end) return eventResult(recorded.end, this.state.workflowEvents);
    let wait: WorkflowWait;
    if (recorded) wait = recorded.wait;
    else {
      const timeoutAt =
        options.timeoutAt !== undefined
          ? new Date(options.timeoutAt).toISOString()
          : options.timeoutMs !== undefined
            ? new Date(this.args.clock() + options.timeoutMs).toISOString()
            : undefined;
      wait = { kind: 'event', event, ...(timeoutAt ? { timeoutAt } : {}), ...(options.match ? { match: options.match } : {}) };
    }
    if (wait.kind !== 'event') throw divergence(this.runId, id, { kind: wait.kind, name: recorded?.name ?? event }, { kind: 'event', name: event });
    const record: JournalEvent | undefined = recorded ? undefined : { type: 'workflow-wait', waitId: id, name: event, wait };
    // Events sent since this invocation last appended (from anywhere) are read before deciding to wait.
    await session.catchUp((afterSeq) => journal.events(this.runId, { afterSeq }));
    // The payload as sent, parsed by the event's schema: the parsed value is what the wait records and returns.
    let delivered: { sent: WorkflowEventRecord; payload: unknown } | undefined;
    for (const candidate of this.state.workflowEvents) {
      if (candidate.name !== wait.event || this.state.deliveredEvents.has(candidate.eventId) || this.takenEvents.has(candidate.eventId)) continue;
      if (!matches(wait.match, candidate.payload)) continue;
      const parsed = parseEventPayload(events, wait.event, candidate.payload);
      if (!parsed.ok) continue;
      delivered = { sent: candidate, payload: parsed.payload };
      break;
    }
    if (delivered) {
      const { sent, payload } = delivered;
      // Taken now, before the append's await: a wait beside this one (Promise.all) takes the next event, not this one.
      this.takenEvents.add(sent.eventId);
      await session.append(...(record ? [record] : []), {
        type: 'workflow-wait-end',
        waitId: id,
        outcome: 'event',
        eventId: sent.eventId,
        value: payload as Extract<JournalEvent, { type: 'workflow-wait-end' }>['value'],
      });
      return { timedOut: false, eventId: sent.eventId, payload, sentAt: sent.at.toISOString(), by: sent.by };
    }
    if (wait.timeoutAt !== undefined && this.args.clock() >= Date.parse(wait.timeoutAt)) {
      await session.append(...(record ? [record] : []), { type: 'workflow-wait-end', waitId: id, outcome: 'timeout' });
      return { timedOut: true };
    }
    this.suspendOn(id, event, wait, record);
  }

  private async runChildren(
    id: string,
    name: string,
    specs: readonly ChildSpec[],
    policy: { concurrency: number; onFailure: 'throw' | 'collect' },
  ): Promise<ChildOutcome[]> {
    const { session, journal, children } = this.args;
    await this.expect(id, 'children', name);
    const recorded = this.state.workflowWaits.get(id);
    if (recorded?.end) return childResult(this.runId, name, recorded.end.value as ChildOutcome[], recorded.wait);
    let wait = recorded?.wait;
    if (!wait) {
      const root = await this.args.jobRoot();
      const refs: ChildRef[] = specs.map((spec, k) => childRef(spec, spec.runId ?? (specs.length === 1 ? `${root}/${name}` : `${root}/${name}/${k}`)));
      this.refuseTakenChildren(id, name, refs);
      wait = { kind: 'children', children: refs, concurrency: policy.concurrency, onFailure: policy.onFailure };
      // The children's ids are recorded before any starts: a crash in between starts the same ones again (idempotent by runId).
      await session.append({ type: 'workflow-wait', waitId: id, name, wait });
    }
    if (wait.kind !== 'children') throw divergence(this.runId, id, { kind: wait.kind, name }, { kind: 'children', name });
    for (const child of wait.children) this.childIds.set(child.runId, id);
    if (!children) {
      throw new WorkflowInputError({
        what: `wf.all("${name}")`,
        problems: ['child runs are started by an executor: run the workflow with one (startWorkflow), or pass runWorkflow a `children` starter'],
      });
    }
    const inputs = specs.map((spec) => spec.input);
    const outcomes = await Promise.all(wait.children.map((child) => readChild(journal, child.runId, children)));
    const failed = () => outcomes.some((o) => o !== undefined && o !== 'open' && o.status !== 'completed');
    let open = outcomes.filter((o) => o === 'open').length;
    for (const [k, child] of wait.children.entries()) {
      if (outcomes[k] !== undefined) continue;
      if (wait.onFailure === 'throw' && failed()) continue;
      if (open >= wait.concurrency) break;
      await children.start({ ...child, input: inputs[k], parent: { runId: this.runId, waitId: id } });
      outcomes[k] = (await readChild(journal, child.runId, children)) ?? 'open';
      if (outcomes[k] === 'open') open++;
    }
    // Settled when none is running and none can still start (after a failure, 'throw' starts no more).
    const unsettled = outcomes.some((o) => o === 'open' || (o === undefined && !(wait.onFailure === 'throw' && failed())));
    if (unsettled) this.suspendOn(id, name, wait, undefined);
    const settled: ChildOutcome[] = outcomes.map((o, k) => (o === undefined || o === 'open' ? { runId: wait.children[k]?.runId ?? '', status: 'skipped' } : o));
    await session.append({ type: 'workflow-wait-end', waitId: id, outcome: 'children', value: settled });
    return childResult(this.runId, name, settled, wait);
  }

  /**
   * A child's id is its wait's name under the run (`<run>/<name>`, `<run>/<name>/<k>`), so a resumed parent finds
   * the same child. A name used again by another wait (a `wf.child('process', …)` in a loop) would name the
   * earlier wait's child, and its output would be taken for the new one's without the new child ever running:
   * refused before anything is written, naming the wait that has it.
   */
  private refuseTakenChildren(id: string, name: string, refs: readonly ChildRef[]): void {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const { runId } of refs) {
      if (seen.has(runId)) problems.push(`child run "${runId}" is named twice in this wait: give each child a runId of its own`);
      seen.add(runId);
      const owner = this.childIds.get(runId) ?? this.recordedChildWait(runId, id);
      if (owner !== undefined && owner !== id) {
        const earlier = this.state.workflowWaits.get(owner)?.name ?? name;
        problems.push(
          `child run "${runId}" is the child of an earlier wait of this run ("${earlier}", ${owner}): give each child wait a name of its own (for example "${name}-" and the item's id), or each child a runId`,
        );
      }
    }
    if (problems.length > 0) throw new WorkflowInputError({ what: `wf.all("${name}")`, problems });
    // Taken now, before the wait's append: a parallel branch asking for the same ids meets them.
    for (const { runId } of refs) this.childIds.set(runId, id);
  }

  /** The recorded children wait (other than `id`) that named `runId`, if any. */
  private recordedChildWait(runId: string, id: string): string | undefined {
    for (const { waitId, wait } of this.state.workflowWaits.values())
      if (waitId !== id && wait.kind === 'children' && wait.children.some((child) => child.runId === runId)) return waitId;
    return undefined;
  }

  /** The run waits on this (its workflow-wait, if new, rides with the run-suspend). */
  private suspendOn(waitId: string, name: string, wait: WorkflowWait, record: JournalEvent | undefined): never {
    this.waiting.push({ waitId, name, wait, ...(record ? { record } : {}) });
    throw new WorkflowSuspended(`${wait.kind} "${name}" waits`);
  }
}

/** Milliseconds since the epoch of a Date or an ISO 8601 text; NaN for anything else (an invalid Date, a number, a typo). */
function instantOf(at: unknown): number {
  if (at instanceof Date) return at.getTime();
  return typeof at === 'string' ? Date.parse(at) : Number.NaN;
}

function divergence(runId: string, id: string, recorded: Recorded, given: Recorded): RunDivergedError {
  const n = Number(id.slice(3)) + 1;
  const difference: Divergence = {
    field: `workflow step ${n} (${id})`,
    recorded: `${recorded.kind} "${recorded.name}"`,
    given: `${given.kind} "${given.name}"`,
  };
  return new RunDivergedError({
    runId,
    differences: [difference],
    replay: true,
    message:
      `Run "${runId}" diverged on replay: workflow step ${n} (${id}) was recorded as ${recorded.kind} "${recorded.name}" and the workflow now calls ${given.kind} "${given.name}". ` +
      'A workflow calls its steps in the same order on every replay: start a new run for the changed workflow.',
  });
}

function matches(match: Record<string, unknown> | undefined, payload: unknown): boolean {
  if (!match) return true;
  if (typeof payload !== 'object' || payload === null) return false;
  return Object.entries(match).every(([field, value]) => JSON.stringify((payload as Record<string, unknown>)[field]) === JSON.stringify(value));
}

function eventResult(
  end: NonNullable<ReturnType<RunSession['state']['workflowWaits']['get']>>['end'] & object,
  sent: RunSession['state']['workflowEvents'],
): EventResult<unknown> {
  if (end.outcome === 'timeout') return { timedOut: true };
  const event = sent.find((e) => e.eventId === end.eventId);
  return {
    timedOut: false,
    eventId: end.eventId ?? '',
    payload: end.value,
    sentAt: event?.at.toISOString() ?? end.at.toISOString(),
    by: event?.by ?? 'unknown',
  };
}

function childResult(runId: string, step: string, outcomes: ChildOutcome[], wait: WorkflowWait): ChildOutcome[] {
  if (wait.kind === 'children' && wait.onFailure === 'throw' && outcomes.some((o) => o.status !== 'completed')) {
    throw new ChildRunFailedError({
      runId,
      step,
      outcomes: outcomes.map((o) => ({ runId: o.runId, status: o.status, ...(o.status === 'failed' ? { error: o.error } : {}) })),
    });
  }
  return outcomes;
}
