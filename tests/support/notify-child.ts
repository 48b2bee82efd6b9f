/**
 * An executor process with webhooks on (GNL_NOTIFY_WEBHOOK_URL, …) that starts one run of the demo's
 * support agent and SIGKILLs itself at `killAt`: `suspended` as soon as the run's suspend has committed
 * (with its outbox row) and the invocation ended, before the notifier looked; `sending` when its
 * notifier has claimed the announcement and is about to POST it (nothing has gone out). The storage is
 * storageFromEnv(); the outside service is GNL_DEMO_SERVICE_URL. Notifier claims last 1 s.
 *
 *   node --import tsx tests/support/notify-child.ts <runId> <prompt> <suspended|sending>
 */
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { storageFromEnv } from '@/lib/durable/storage';
import { Executor, notifySettingsFromEnv } from '@/lib/executor';

const [runId, prompt, killAt] = process.argv.slice(2);
if (!runId || !prompt || (killAt !== 'suspended' && killAt !== 'sending')) throw new Error('usage: notify-child.ts <runId> <prompt> <suspended|sending>');
const settings = notifySettingsFromEnv();
if (!settings) throw new Error('notify-child: GNL_NOTIFY_WEBHOOK_URL is not set');
const registry = createAgentRegistry([supportAgent()]);
const die = () => process.kill(process.pid, 'SIGKILL');
const executor = new Executor({
  storage: storageFromEnv(),
  registry,
  pollMs: 50,
  // Only an invocation's end wakes this notifier (no periodic look in the test's lifetime).
  notify: { ...settings, pollMs: 3_600_000, leaseMs: 1_000 },
  onEvent: (event) => {
    if (killAt === 'suspended' && event.type === 'finished' && event.runId === runId && event.outcome === 'waiting-approval') die();
    if (killAt === 'sending' && event.type === 'notification-sending' && event.runId === runId) die();
  },
}).start();
await executor.startRun({ agent: 'support', runId, input: { prompt } });
// Killed above; if not within the test's time, the test fails on the exit it sees.
setTimeout(() => process.exit(3), 120_000);
