/**
 * An executor: claims runnable runs from the run queue, invokes each (invoke-run.ts) and keeps their
 * leases alive with heartbeats, up to `concurrency` at a time. `npm run worker` is one (worker-main.ts);
 * the Studio's server has one in-process (in-process.ts). Any number share one Postgres.
 *
 * The lease protocol (every time is the database's clock):
 *   1. claim: a runnable run whose lease is free or expired, FOR UPDATE SKIP LOCKED, leased until
 *      now() + leaseMs;
 *   2. invoke: runAgent takes the journal's hold (a session advisory lock, and a fresh holder token that
 *      every append checks). If the hold is taken and the lease this executor claimed had expired, the
 *      old holder hangs without dying: its lock session is terminated (takeover.ts) and the hold taken
 *      again; the old holder's next append is refused (HoldLostError) and it gives the run up;
 *   3. heartbeat every heartbeatMs renews the leases of the runs being invoked; a run whose lease is
 *      gone was taken over, and its invocation stops at the next step boundary;
 *   4. finish: the lease is released; the run stays runnable if it was given back unfinished or resumed
 *      meanwhile.
 * stop() (SIGTERM) claims nothing more, stops every invocation at its next step boundary, waits up to
 * graceMs, then releases the leases it still has: another executor resumes those runs at once.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Schedule } from '@/lib/agents';
import type { Agent } from '@/lib/agents';
import type { RunTimer } from '@/lib/durable';
import type { AroundInvocation } from './around-invocation';
import { type ExecutorContext, type Resolved, resolveContext } from './context';
import { type ForkedRun, type ForkPreview, type ForkRunRequest, forkRun, type PreviewForkRequest, previewFork } from './fork-run';
import { type Invocation, invokeRun, type ParentLink, type StopReason } from './invoke-run';
import { type NextWake, nextWake } from './next-wake';
import { startSubAgents } from './sub-agents';
import { wakeParentOf, workflowChildren } from './workflows';
import { NotificationOutbox } from './notifications/notification-outbox';
import { Notifier, type NotifierEvent } from './notifications/notifier';
import { type NotifySettings, notifySettingsForDirectory, notifySettingsFromEnv } from './notifications/notify-settings';
import { WebhookStore } from './notifications/webhook-store';
import { type RetentionSettings, retentionPolicy } from './retention/retention-policy';
import { type RetentionEvent, type RetentionPassReport, RetentionTicker } from './retention/retention-ticker';
import { type ControlledRun, resumeRun } from './run-control';
import type { Claim } from './run-queue';
import { ScheduleStore } from './schedules/schedule-store';
import { type ScheduleEvent, ScheduleTicker, type TickReport } from './schedules/schedule-ticker';
import { type StartedRun, type StartRunOptions, startAndEnqueue } from './start-run';
import { terminateStaleHolder } from './takeover';

export interface ExecutorOptions extends ExecutorContext {
  /** Runs invoked at once. Default 4. */
  concurrency?: number;
  /** How long a claim holds a run without a heartbeat. Default 30 000 ms. */
  leaseMs?: number;
  /** Default leaseMs / 3. */
  heartbeatMs?: number;
  /** How often to look for runnable runs when nothing wakes the executor. Default 1 000 ms. */
  pollMs?: number;
  /** How this executor appears in leases and logs. Default `<host>:<pid>:<random>`. */
  owner?: string;
  /**
   * The only executor on its journal: leases of any other owner are left over from an earlier process
   * and are taken at once. Default: true where the storage serves one process (the embedded journal).
   */
  sole?: boolean;
  /**
   * Wraps every invocation this executor starts (around-invocation.ts): the deployment's hook, e.g. the
   * demo arming a run's crash point. Default: none, runs are invoked as they are.
   */
  aroundInvocation?: AroundInvocation;
  /**
   * Invoke runs through streamAgent and write each invocation's stream to the run's stream log, so that
   * the Studio shows the step being generated and a chat client that reconnects replays its answer
   * (stream-log.ts). Default false: runAgent (generate), nothing written beside the events.
   */
  streamRuns?: boolean;
  /** What the executor does, as it happens (the worker prints these as JSON lines). */
  onEvent?: (event: ExecutorEvent) => void;
  /**
   * Cron schedules this executor ticks (defineSchedule; the deployment's from agents/schedules.ts): it
   * starts each due slot's run, once whoever else ticks them too (schedule-ticker.ts). Default none.
   */
  schedules?: readonly Schedule[];
  /** The retry delays' jitter source (retry-policy.ts). Default Math.random. */
  random?: () => number;
  /**
   * Webhooks announcing runs that wait for people or failed (notifier.ts, docs/notifications.md): this
   * executor sends the journal's outbox. Default: notifySettingsFromEnv() (GNL_NOTIFY_WEBHOOK_URL, …);
   * false: none. `pollMs` (default 5 000) is how often it looks for notifications no invocation here woke;
   * `leaseMs` how long its claim on one holds (default: the webhooks' time limits plus a minute).
   */
  notify?: (NotifySettings & { pollMs?: number; leaseMs?: number }) | false;
  /**
   * Also send to the webhooks set in the Studio (gnl.webhooks: webhook-store.ts), read again every few
   * seconds, so one added there is used without a restart. The deployment's processes (the worker, the
   * Studio's executor) set it; with `notify` left to the environment only. Default false.
   */
  webhookDirectory?: boolean;
  /**
   * Run the retention job (retention-ticker.ts, docs/operations.md#retention): drop this registry's agents'
   * runs that ended more than their retention ago, one pass per interval across every executor. The
   * worker passes retentionSettingsFromEnv(); the Studio's server on the embedded journal too. Default false.
   */
  retention?: RetentionSettings | false;
}

export type ExecutorEvent =
  | { type: 'started'; owner: string; concurrency: number; leaseMs: number }
  | { type: 'claimed'; runId: string; claims: number; claimedAt: Date; leaseExpiresAt: Date; previousOwner: string | null }
  | { type: 'took-over'; runId: string; terminatedPids: number[] }
  | { type: 'lease-lost'; runId: string }
  /** A transient failure journaled as run-retry: the attempt that failed, and when the next one is due (absent: attempts used up). */
  | { type: 'retry'; runId: string; attempt: number; attempts: number; retryAt?: string }
  /** The run's queue timer after this invocation: not claimed before dueAt. */
  | { type: 'timer'; runId: string; kind: RunTimer['kind']; dueAt: string }
  | { type: 'finished'; runId: string; kind: Invocation['kind']; outcome: string; error?: string; released: boolean }
  | { type: 'error'; where: string; error: string }
  /** The journal stopped answering this executor (its claim poll or heartbeat failed): said once, until it answers again. */
  | { type: 'journal-unreachable'; where: string; error: string }
  /** The journal answers again (a new session: the server restarted, or a failover moved the primary): `afterMs` since it stopped. */
  | { type: 'journal-reachable'; afterMs: number }
  | { type: 'stopping' }
  | { type: 'stopped'; givenBack: string[] }
  | NotifierEvent
  | ScheduleEvent
  | RetentionEvent;

interface Active {
  claim: Claim;
  stop: StopReason | undefined;
  done: Promise<void>;
  /** The invocation ended and its lease is being given back: a heartbeat that no longer finds it held is not a lost lease. */
  finishing?: boolean;
}

const TAKEOVER_ATTEMPTS = 20;

export class Executor {
  readonly owner: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly sole: boolean;
  private readonly resolved: Resolved;
  private readonly active = new Map<string, Active>();
  /** Slots promised to startRun/resumeRun calls still on their way to the database. */
  private reserved = 0;
  private running = false;
  private stopping: Promise<string[]> | undefined;
  private wakeUp: (() => void) | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private loopDone: Promise<void> | undefined;
  private readonly ticker: ScheduleTicker | undefined;
  private readonly notifier: Notifier | undefined;
  private readonly retention: RetentionTicker | undefined;

  constructor(private readonly options: ExecutorOptions) {
    this.resolved = resolveContext(options);
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.concurrency = Math.max(1, Math.floor(options.concurrency ?? 4));
    this.leaseMs = options.leaseMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(this.leaseMs / 3));
    // A lease renewed less often than it lasts lapses between heartbeats: another executor would take the run over mid-tool.
    if (!(this.heartbeatMs < this.leaseMs))
      throw new RangeError(
        `The executor's heartbeatMs (${this.heartbeatMs}) must be shorter than its leaseMs (${this.leaseMs}); by default it is a third of it.`,
      );
    this.pollMs = options.pollMs ?? 1_000;
    this.sole = options.sole ?? !this.resolved.storage.capabilities.multiProcess;
    const { storage, registry } = this.resolved;
    if (options.schedules && options.schedules.length > 0)
      this.ticker = new ScheduleTicker({
        schedules: options.schedules,
        registry,
        store: new ScheduleStore(() => storage.database()),
        start: (run) => this.startRun(run),
        onEvent: (event) => this.emit(event),
        onError: (scheduleId, error) => this.emit({ type: 'error', where: `schedule ${scheduleId}`, error: describeError(error) }),
      });
    const directory = options.webhookDirectory === true && options.notify === undefined;
    const notify: ExecutorOptions['notify'] =
      options.notify === undefined ? (directory ? notifySettingsForDirectory() : notifySettingsFromEnv()) : options.notify;
    if (notify)
      this.notifier = new Notifier({
        settings: notify,
        ...(directory ? { directory: new WebhookStore(() => storage.database(), storage.secrets) } : {}),
        journal: this.resolved.journal,
        outbox: new NotificationOutbox(() => storage.database()),
        queue: this.resolved.queue,
        owner: this.owner,
        sole: this.sole,
        ...(notify.pollMs !== undefined ? { pollMs: notify.pollMs } : {}),
        ...(notify.leaseMs !== undefined ? { leaseMs: notify.leaseMs } : {}),
        onEvent: (event) => this.emit(event),
        onError: (where, error) => this.emit({ type: 'error', where, error: describeError(error) }),
      });
    if (options.retention)
      this.retention = new RetentionTicker({
        storage,
        policy: retentionPolicy({ registry, defaultDays: options.retention.defaultDays }),
        settings: options.retention,
        owner: this.owner,
        onEvent: (event) => this.emit(event),
        onError: (error) => this.emit({ type: 'error', where: 'retention', error: describeError(error) }),
      });
  }

  /** Starts claiming runs. */
  start(): this {
    if (this.running || this.stopping) return this;
    this.running = true;
    this.emit({ type: 'started', owner: this.owner, concurrency: this.concurrency, leaseMs: this.leaseMs });
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.loopDone = this.loop();
    this.ticker?.start();
    this.notifier?.start();
    this.retention?.start();
    return this;
  }

  /** A retention pass now (tests, operators): `force` ignores the interval. Undefined: no retention here, or another executor's pass is recent. */
  retentionPass(options: { force?: boolean; now?: Date } = {}): Promise<RetentionPassReport | undefined> {
    return this.retention ? this.retention.pass(options) : Promise.resolve(undefined);
  }

  /** Ticks this executor's schedules now (`now` replaces the database's clock: tests of missed slots). */
  tickSchedules(options: { now?: Date } = {}): Promise<TickReport[]> {
    return this.ticker ? this.ticker.tick(options) : Promise.resolve([]);
  }

  /** The agents this executor can run: it claims only their runs (workers of different deployments may share a database). */
  private get agents(): string[] {
    const { registry } = this.resolved;
    return [...registry.listAgents().map((agent) => agent.name), ...registry.listWorkflows().map((workflow) => workflow.name)];
  }

  /** Runs being invoked here now. */
  get activeRuns(): string[] {
    return [...this.active.keys()];
  }

  /** startRun, then invoke the new run here at once when a slot is free (else it waits in the queue like any run). */
  async startRun(options: Omit<StartRunOptions, 'storage' | 'registry'>): Promise<StartedRun> {
    const { storage, registry } = this.resolved;
    const free = this.reserve();
    let started: StartedRun;
    try {
      started = await startAndEnqueue({ ...options, storage, registry }, free ? { leaseTo: { owner: this.owner, leaseMs: this.leaseMs } } : {});
    } finally {
      if (free) this.reserved -= 1;
    }
    if (started.leased) {
      const now = new Date();
      this.launch({
        runId: started.runId,
        agent: started.agent,
        wakeups: 1,
        claims: 1,
        claimedAt: now,
        leaseExpiresAt: now,
        previousOwner: null,
      });
    } else this.kick();
    return started;
  }

  /** resumeRun (who asks, and why, journaled first), then claim the run here at once when a slot is free. */
  async resumeRun(runId: string, request: { by: string; reason?: string }): Promise<ControlledRun> {
    const { storage } = this.resolved;
    const resumed = await resumeRun(runId, { ...request, storage });
    if (!this.active.has(runId) && this.reserve()) {
      try {
        const [claim] = await this.resolved.queue.claim({
          owner: this.owner,
          limit: 1,
          leaseMs: this.leaseMs,
          runId,
          sole: this.sole,
          exclude: this.activeRuns,
          agents: this.agents,
        });
        if (claim) this.launch(claim);
      } finally {
        this.reserved -= 1;
      }
    }
    this.kick();
    return resumed;
  }

  /** forkRun (fork-run.ts) on this executor's storage and registry, then look for the fork at once. */
  async forkRun(request: Omit<ForkRunRequest, 'storage' | 'registry'>): Promise<ForkedRun> {
    const forked = await forkRun({ ...request, storage: this.resolved.storage, registry: this.resolved.registry });
    this.kick();
    return forked;
  }

  /** previewFork (fork-run.ts) on this executor's storage and registry: writes nothing. */
  previewFork(request: Omit<PreviewForkRequest, 'storage' | 'registry'>): Promise<ForkPreview> {
    return previewFork({ ...request, storage: this.resolved.storage, registry: this.resolved.registry });
  }

  /** Takes a slot for a run about to be launched here, if one is free. */
  private reserve(): boolean {
    if (!this.running || this.stopping || this.active.size + this.reserved >= this.concurrency) return false;
    this.reserved += 1;
    return true;
  }

  /** Look for runnable runs now instead of at the next poll. */
  kick(): void {
    this.wakeUp?.();
  }

  /** Resolves when every invocation running now has ended (tests). */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.all([...this.active.values()].map((a) => a.done));
  }

  /**
   * Stops claiming, stops each invocation at its next step boundary, waits for them up to `graceMs`
   * (default the lease), then releases the leases still held. Resolves to the runs given back that way.
   */
  stop(options: { graceMs?: number } = {}): Promise<string[]> {
    this.stopping ??= (async () => {
      this.emit({ type: 'stopping' });
      this.running = false;
      await this.ticker?.stop();
      await this.retention?.stop();
      this.kick();
      for (const active of this.active.values()) active.stop ??= 'stopping';
      const ended = Promise.all([...this.active.values()].map((a) => a.done));
      await Promise.race([ended, sleep(options.graceMs ?? this.leaseMs)]);
      await this.loopDone;
      clearInterval(this.heartbeatTimer);
      let givenBack: string[] = [];
      try {
        givenBack = await this.resolved.queue.releaseAll(this.owner);
      } catch (error) {
        this.emit({ type: 'error', where: 'release', error: describeError(error) }); // the leases expire by themselves
      }
      // One last look at the outbox: a run that suspended here is announced before the process exits.
      await this.notifier?.stop();
      this.emit({ type: 'stopped', givenBack });
      return givenBack;
    })();
    return this.stopping;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const free = this.concurrency - this.active.size - this.reserved;
      if (free > 0) {
        try {
          const claims = await this.resolved.queue.claim({
            owner: this.owner,
            limit: free,
            leaseMs: this.leaseMs,
            sole: this.sole,
            exclude: this.activeRuns,
            agents: this.agents,
          });
          this.journalAnswered();
          for (const claim of claims) this.launch(claim);
          if (claims.length === free) continue;
        } catch (error) {
          this.journalFailed('claim', error);
          this.emit({ type: 'error', where: 'claim', error: describeError(error) });
        }
      }
      if (!this.running) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private launch(claim: Claim): void {
    if (this.active.has(claim.runId)) return;
    const active: Active = { claim, stop: this.stopping ? 'stopping' : undefined, done: Promise.resolve() };
    this.active.set(claim.runId, active);
    this.emit({ type: 'claimed', ...claim });
    active.done = this.invoke(active)
      .catch((error) => this.emit({ type: 'error', where: `invoke ${claim.runId}`, error: describeError(error) }))
      .finally(() => {
        this.active.delete(claim.runId);
        this.kick();
      });
  }

  private async invoke(active: Active): Promise<void> {
    const { claim } = active;
    const { journal, registry, storage, queue } = this.resolved;
    let invocation: Invocation;
    for (let attempt = 0; ; attempt++) {
      invocation = await invokeRun({
        claim,
        journal,
        registry,
        owner: this.owner,
        stopRequested: () => active.stop,
        ...(this.options.aroundInvocation ? { around: this.options.aroundInvocation } : {}),
        ...(this.options.streamRuns ? { stream: true } : {}),
        children: workflowChildren({ storage, registry }),
        memory: storage.memory,
      });
      const takeOver =
        invocation.kind === 'given-back' &&
        invocation.outcome === 'busy' &&
        !invocation.localBusy &&
        storage.capabilities.holdTakeover &&
        attempt < TAKEOVER_ATTEMPTS &&
        !active.stop;
      if (!takeOver) break;
      // The lease is ours, so whoever still holds the run's lock hangs without a lease: end its session.
      const terminatedPids = await terminateStaleHolder({ storage, runId: claim.runId, owner: this.owner });
      if (terminatedPids.length > 0) this.emit({ type: 'took-over', runId: claim.runId, terminatedPids });
      await sleep(100 * Math.min(attempt + 1, 5)); // the terminated backend lets go of its locks as it exits
    }
    const settled = invocation.kind === 'settled';
    const wake = invocation.kind === 'settled' ? await this.nextWake(claim, invocation) : undefined;
    const timers = typeof wake === 'object' ? wake : undefined;
    if (timers?.retry) this.emit({ type: 'retry', runId: claim.runId, ...timers.retry });
    if (timers?.timer) this.emit({ type: 'timer', runId: claim.runId, kind: timers.timer.kind, dueAt: timers.timer.dueAt });
    // If the lease cannot be released (the database is unreachable), the invocation's end is still
    // reported, with that error beside it; the lease expires by itself and the run is claimed again.
    active.finishing = true;
    const released = await queue
      .finish({
        runId: claim.runId,
        owner: this.owner,
        wakeups: claim.wakeups,
        runnable: settled && wake !== 'unrecorded' ? 'done' : 'keep',
        outcome: invocation.outcome,
        ...(invocation.error !== undefined ? { error: invocation.error } : {}),
        // A run that failed for a reason outside it is tried again, not at once.
        ...(invocation.outcome === 'journal-error' || invocation.outcome === 'busy' || wake === 'unrecorded'
          ? { retryAfterMs: Math.min(this.leaseMs, 5_000) }
          : {}),
        ...(timers?.wakeInMs !== undefined ? { wakeInMs: timers.wakeInMs, ...(timers.despiteWake ? { wakeDespiteWakeups: true } : {}) } : {}),
      })
      .catch((error: unknown) => {
        this.emit({ type: 'error', where: `finish ${claim.runId}`, error: describeError(error) });
        return false;
      });
    this.emit({
      type: 'finished',
      runId: claim.runId,
      kind: invocation.kind,
      outcome: invocation.outcome,
      ...(invocation.error !== undefined ? { error: invocation.error } : {}),
      released,
    });
    // The invocation may have written a suspend or a failure (its outbox row committed with it): send it now.
    if (settled) this.notifier?.kick();
    // A child run that settled wakes the workflow waiting for it (after its retry, if any, is journaled).
    // Its lease is given back by now, so nothing else would do either again if it failed (the journal away for
    // a moment): the run is then set to be claimed again shortly, and its next invocation, settling as this one
    // did, does them again (each is idempotent: a parent answered already is woken, a child started is not again).
    let followUp: unknown;
    if (settled)
      await wakeParentOf(this.resolved, claim.runId, parentOf(invocation)).catch((error: unknown) => {
        followUp ??= error;
        this.emit({ type: 'error', where: `wake parent of ${claim.runId}`, error: describeError(error) });
      });
    // An agent run that waits for a sub-agent call's result: its child run is started (sub-agents.ts).
    if (settled && invocation.outcome.startsWith('waiting'))
      await startSubAgents(this.resolved, claim.runId).catch((error: unknown) => {
        followUp ??= error;
        this.emit({ type: 'error', where: `start the sub-agents of ${claim.runId}`, error: describeError(error) });
      });
    if (followUp !== undefined)
      await queue
        .schedule(claim.runId, Math.min(this.leaseMs, 5_000))
        .catch((error: unknown) => this.emit({ type: 'error', where: `schedule ${claim.runId} again`, error: describeError(error) }));
  }

  /**
   * The settled run's retry and timer (next-wake.ts). 'unrecorded': the journal could not be read or
   * written (a transient failure whose retry is not journaled yet): the run is given back and tried again.
   */
  private async nextWake(claim: Claim, invocation: Extract<Invocation, { kind: 'settled' }>): Promise<NextWake | 'unrecorded'> {
    // A completed or canceled run has no timer and no retry (run-timers.ts): nothing to read (issue 31: two statements a run).
    if (invocation.outcome === 'completed' || invocation.outcome === 'canceled') return {};
    const { journal, registry } = this.resolved;
    let agent: Agent | undefined;
    try {
      agent = registry.getAgent(claim.agent);
    } catch {
      agent = undefined; // an agent this registry no longer has: its runs are not retried here
    }
    try {
      return await nextWake({
        runId: claim.runId,
        journal,
        agent,
        owner: this.owner,
        claimedAt: claim.claimedAt,
        ...(invocation.transient && invocation.failure ? { transientFailure: invocation.failure } : {}),
        wokenMeanwhile: async () => (await this.resolved.queue.entry(claim.runId))?.wakeups !== claim.wakeups,
        ...(this.options.random ? { random: this.options.random } : {}),
      });
    } catch (error) {
      this.emit({ type: 'error', where: `timers ${claim.runId}`, error: describeError(error) });
      // A run that waits (or is blocked) may have a timer this read would have found (a sleep, a deadline, a
      // scheduled resume): given back and invoked again, it settles as it did and its timers are read again,
      // rather than its lease released with no wake, where the timer would never fire. A run that failed for
      // good is not invoked again by itself: invoking it would resume it.
      return invocation.transient || invocation.outcome.startsWith('waiting') || invocation.outcome === 'blocked' ? 'unrecorded' : {};
    }
  }

  private async heartbeat(): Promise<void> {
    const ids = this.activeRuns;
    if (ids.length === 0) return;
    try {
      const held = await this.resolved.queue.heartbeat(this.owner, ids, this.leaseMs);
      this.journalAnswered();
      for (const runId of ids) {
        const active = this.active.get(runId);
        if (!active || active.finishing || held.has(runId) || active.stop === 'lease-lost') continue;
        active.stop = 'lease-lost';
        this.emit({ type: 'lease-lost', runId });
      }
    } catch (error) {
      this.journalFailed('heartbeat', error);
      this.emit({ type: 'error', where: 'heartbeat', error: describeError(error) });
    }
  }

  /** Since when the journal has not answered this executor's own statements (undefined: it answers). */
  private journalDownSince: number | undefined;

  private journalFailed(where: string, error: unknown): void {
    if (this.journalDownSince !== undefined) return;
    this.journalDownSince = Date.now();
    this.emit({ type: 'journal-unreachable', where, error: describeError(error) });
  }

  private journalAnswered(): void {
    if (this.journalDownSince === undefined) return;
    const afterMs = Date.now() - this.journalDownSince;
    this.journalDownSince = undefined;
    this.emit({ type: 'journal-reachable', afterMs });
  }

  private emit(event: ExecutorEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a listener's failure is not the executor's
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** The error and its causes, one line: drizzle's "Failed query: …" keeps what went wrong (ECONNREFUSED, a statement timeout) in its cause. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}${'code' in e && e.code ? ` (${String(e.code)})` : ''}` : String(e));
    if (!(e instanceof Error)) break;
  }
  return parts.join(' <- ');
}

/** The settled run's parent link as its invocation read it (wakeParentOf's `known`): undefined when it could not, so it is read there. */
function parentOf(invocation: Invocation): { input: { parent?: ParentLink } } | undefined {
  if (invocation.kind !== 'settled' || invocation.parent === undefined) return undefined;
  return { input: invocation.parent === null ? {} : { parent: invocation.parent } };
}
