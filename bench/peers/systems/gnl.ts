/**
 * GNL: runDurable on PostgresStorage; the tool is a gnlTool with sideEffect: true (GNL's default for an effect).
 * `followUrl`: each run is followed live while it runs, as the Studio's run page follows it (a subscription
 * from another storage, on a connection the proxy does not count): the writer's NOTIFYs are then counted
 * with its statements (issue 31: ≤ 1.6 statements per checkpoint while someone watches).
 */
import { gnlTool, runDurable, SideEffectRetryBlockedError } from '../../../lib/durable';
import { PostgresStorage } from '../../../lib/durable/storage';
import { type AgentAnswer, checkAnswer, loopSettings, recordTool, scriptedModel } from '../agent';
import type { DurableSystem, SystemOptions } from '../system';

export class GnlSystem implements DurableSystem {
  readonly name: string;
  private readonly storage: PostgresStorage;
  private readonly follower: PostgresStorage | undefined;

  constructor(private readonly options: SystemOptions & { followUrl?: string }) {
    this.storage = new PostgresStorage({ connectionString: options.url });
    this.follower = options.followUrl ? new PostgresStorage({ connectionString: options.followUrl }) : undefined;
    this.name = this.follower ? 'GNL, followed live' : 'GNL';
  }

  async run(runId: string): Promise<AgentAnswer> {
    if (!this.follower) return this.runOnce(runId);
    let seen = 0;
    const subscription = await this.follower.runs.subscribe({
      runId,
      onEvents: (events) => {
        seen = events.at(-1)?.seq ?? seen;
      },
    });
    try {
      const answer = await this.runOnce(runId);
      // Every notification of the run sent and heard before the next run is timed.
      const last = (await this.follower.runs.getRun(runId))?.lastSeq ?? 0;
      while (seen < last) await new Promise((resolve) => setTimeout(resolve, 2));
      return answer;
    } finally {
      await subscription.close();
    }
  }

  private async runOnce(runId: string): Promise<AgentAnswer> {
    const result = await runDurable({
      model: scriptedModel(),
      tools: { record: gnlTool(recordTool(this.options.effect), { sideEffect: true }) },
      ...loopSettings,
      runId,
      journal: this.storage.runs,
    });
    if (result.status !== 'completed') throw new Error(`GNL: run ${runId} ended ${result.status}`);
    return checkAnswer(this.name, { text: result.text, steps: result.steps.length });
  }

  answer(runId: string): Promise<AgentAnswer> {
    return this.runOnce(runId);
  }

  async close(): Promise<void> {
    await Promise.all([this.storage.close(), this.follower?.close()]);
  }
}

export { SideEffectRetryBlockedError };
