/**
 * What the outside system holds under a blocked side effect's idempotency key, asked through the tool's
 * own `lookup` (gnlTool's option, found through the agent registry): the evidence a person settles an
 * unknown outcome with, and what "mark done" is prefilled with. A tool without a lookup is asked nothing.
 * A lookup that fails says so (its message shown, the error logged): the person then decides without it.
 * Server-only.
 */
import 'server-only';
import { registry } from '@/agents';
import { toolLookupOf } from '@/lib/agents';
import type { PendingItem } from '@/lib/durable';
import { jsonSafe } from './wire';
import { logText } from '../log-text';

export type OutsideRecord =
  /** `record`: what the system holds, shown as text; `output`: the tool's result it amounts to, the form's prefill. */
  { state: 'found'; record: unknown; output?: unknown } | { state: 'not-found' } | { state: 'failed'; message: string };

export async function outsideRecord(args: {
  runId: string;
  agentName: string | undefined;
  item: Extract<PendingItem, { kind: 'side-effect' }>;
}): Promise<OutsideRecord | undefined> {
  const { runId, agentName, item } = args;
  const lookup = toolLookupOf(registry, agentName, item.toolName);
  if (!lookup) return undefined;
  try {
    const found = await lookup({ runId, toolCallId: item.toolCallId, input: item.input, idempotencyKey: item.idempotencyKey });
    if (!found.found) return { state: 'not-found' };
    return { state: 'found', record: jsonSafe(found.record), ...(found.output !== undefined ? { output: jsonSafe(found.output) } : {}) };
  } catch (error) {
    console.error(`studio: the lookup of ${logText(item.toolName)} (${logText(item.toolCallId)}) in run ${logText(runId)} failed: ${logText(error)}`);
    return { state: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}
