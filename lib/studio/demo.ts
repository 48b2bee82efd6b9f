/**
 * The demo as the Studio shows it: which model the support agent runs on (demoModelInfo: a real
 * provider, or the scripted model and why), and the outside service's own counters, read over HTTP
 * from the service (npm run studio starts it beside the Studio), whether operators may arm crash
 * points here (lib/demo crash-points-allowed.ts), and the crash points themselves: a demo run's is
 * recorded where every executor on the journal finds it (lib/demo crash-point-store.ts), and the
 * server's executor arms it around each invocation where crash points are allowed. Server-only.
 */
import 'server-only';
import { randomUUID } from 'node:crypto';
import {
  type CrashPoint,
  CrashPointStore,
  type CrashPointsPolicy,
  crashPointsAllowed,
  DEMO_CUSTOMERS,
  type DemoModelInfo,
  demoChecks,
  demoModelInfo,
  demoServiceUrl,
  type ServiceStats,
  serviceClient,
} from '@/lib/demo';
import { SUPPORT_FOUR_EYES, SUPPORT_UNCHECKED } from '@/agents';
import { storageFromEnv } from '@/lib/durable/storage';
import { type AroundInvocation, getExecutor, type StartedRun } from '@/lib/executor';

export const DEMO_PROMPT = 'Customer c_42 wants a refund of 40 for order o_17';

export type DemoServiceState = { url: string; stats: ServiceStats } | { url: string; error: string };

export async function demoServiceState(): Promise<DemoServiceState> {
  const url = demoServiceUrl();
  try {
    return { url, stats: await serviceClient(url).stats() };
  } catch (error) {
    return {
      url,
      error: `The demo's outside service at ${url} did not answer (${(error as Error).message}). npm run studio starts it; or run npm run demo:service.`,
    };
  }
}

/** Whether this Studio lets operators arm crash points (on for the embedded journal, off on Postgres, GNL_DEMO_CRASH_POINTS decides). */
export function demoCrashPoints(): CrashPointsPolicy {
  // By what the storage declares, not instanceof: the storage is cached process-wide and may come from
  // another bundle's copy of the class (the instrumentation's), which made the embedded journal read as Postgres.
  return crashPointsAllowed({ sharedJournal: storageFromEnv().capabilities.multiProcess });
}

const crashPoints = () => new CrashPointStore(storageFromEnv());

/**
 * The server executor's hook around invocations (bootStudio): arms the crash point a run was started
 * with, where this Studio allows crash points. Where it does not, none is armed here, whoever started the
 * run with one (the command line, on a shared Postgres): that is what keeps operators from killing it.
 * A bad GNL_DEMO_CRASH_POINTS arms none; the Demo page and the action say why.
 */
export function demoInvocationHook(): AroundInvocation | undefined {
  let allowed: boolean;
  try {
    allowed = demoCrashPoints().allowed;
  } catch {
    allowed = false;
  }
  return allowed ? afterThePageLoads : undefined;
}

/**
 * How long a run started with a crash point waits before this server executes it (and dies at the
 * point): the page that started it must load first, or the browser's navigation to the run meets a
 * server that is restarting and the person never sees the run they started crash.
 */
export const CRASH_RUN_GRACE_MS = 1500;

const afterThePageLoads: AroundInvocation = async (run, invoke) => {
  const store = crashPoints();
  if (await store.armedFor(run.runId)) await new Promise((resolve) => setTimeout(resolve, CRASH_RUN_GRACE_MS));
  return store.aroundInvocation(run, invoke);
};

/**
 * Starts the support agent on `prompt` on this server's executor, its crash point (if any) recorded
 * first, under the run id it will have, so that the invocation that may begin at once finds it. The
 * caller checked that crash points are allowed here (operator-actions.ts startDemoRun).
 */
/** The demo's agents: the support agent, the same without `check`, and the same with four eyes on refunds (the Demo page's choices). */
export const DEMO_AGENTS: readonly string[] = ['support', SUPPORT_UNCHECKED, SUPPORT_FOUR_EYES];

/**
 * `checks: false` starts the run on the support agent without `check`; `fourEyes`, on the one whose refunds
 * another person approves (agents/support.ts). Both at once are refused: no agent is both.
 */
export async function startSupportRun(request: {
  prompt: string;
  crashAt?: CrashPoint;
  checks?: boolean;
  fourEyes?: boolean;
  by?: string;
  /** The form's id for this start: the same id again is the same run (a retried request starts no second one). */
  requestId?: string;
}): Promise<StartedRun> {
  if (request.fourEyes && request.checks === false) {
    throw new TypeError('Four eyes on refunds runs on the support agent with check: untick one of the two.');
  }
  const runId = `support:${request.requestId ?? randomUUID()}`;
  if (request.crashAt) await crashPoints().arm(runId, request.crashAt);
  const agent = request.fourEyes ? SUPPORT_FOUR_EYES : request.checks === false ? SUPPORT_UNCHECKED : 'support';
  // Who started it is recorded: a four-eyes approval rule keeps them from approving its calls.
  return getExecutor().startRun({ agent, runId, input: { prompt: request.prompt }, ...(request.by ? { by: request.by } : {}) });
}

export interface DemoInfo {
  model: DemoModelInfo;
  /** Whether the support agent has `check` here (GNL_DEMO_CHECKS); without it, the Demo page's choice is moot. */
  checks: boolean;
  prompt: string;
  customers: typeof DEMO_CUSTOMERS;
  crashPoints: CrashPointsPolicy;
}

export function demoInfo(): DemoInfo {
  return { model: demoModelInfo(), checks: demoChecks(), prompt: DEMO_PROMPT, customers: DEMO_CUSTOMERS, crashPoints: demoCrashPoints() };
}
