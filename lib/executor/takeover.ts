/**
 * Taking a run over from a holder that hangs without dying (a SIGSTOPped worker keeps its database
 * connections, so its session advisory lock on the run stays granted). Only after this executor holds
 * an unexpired lease on the run, which it got because the old holder's lease expired: storage ends the
 * database sessions holding the run (terminateRunHolders) in a statement that checks that lease itself
 * (run-queue.ts leaseHeld). The old holder's next append is then refused by the core's fencing
 * (HoldLostError) and it gives the run up.
 *
 * Terminating that session ends every hold of that process, which is right: its heartbeats renew all
 * of its leases at once, so a holder that missed one lease missed them all.
 */
import { type Storage, terminateRunHolders } from '@/lib/durable/storage';
import { leaseHeld } from './run-queue';

export async function terminateStaleHolder(args: { storage: Storage; runId: string; owner: string }): Promise<number[]> {
  return terminateRunHolders(await args.storage.database(), { runId: args.runId, onlyIf: leaseHeld(args.runId, args.owner) });
}
