/**
 * The demo as the Studio shows it: which model the support agent runs on (demoModelInfo: a real
 * provider, or the scripted model and why), and the outside service's own counters, read over HTTP
 * from the service (npm run studio starts it beside the Studio), and whether operators may arm crash
 * points here (lib/demo crash-points-allowed.ts). Server-only.
 */
import 'server-only';
import {
  type CrashPointsPolicy,
  crashPointsAllowed,
  DEMO_CUSTOMERS,
  type DemoModelInfo,
  demoModelInfo,
  demoServiceUrl,
  type ServiceStats,
  serviceClient,
} from '@/lib/demo';
import { storageFromEnv } from '@/lib/durable/storage';

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
  // By `kind`, not instanceof: the storage is cached process-wide and may come from another bundle's
  // copy of the class (the instrumentation's), which made the embedded journal read as Postgres.
  return crashPointsAllowed({ embeddedJournal: storageFromEnv().kind === 'pglite' });
}

export interface DemoInfo {
  model: DemoModelInfo;
  prompt: string;
  customers: typeof DEMO_CUSTOMERS;
  crashPoints: CrashPointsPolicy;
}

export function demoInfo(): DemoInfo {
  return { model: demoModelInfo(), prompt: DEMO_PROMPT, customers: DEMO_CUSTOMERS, crashPoints: demoCrashPoints() };
}
