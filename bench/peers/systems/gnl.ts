/** GNL: runDurable on PostgresStorage; the tool is a gnlTool with sideEffect: true (GNL's default for an effect). */
import { gnlTool, runDurable, SideEffectRetryBlockedError } from '../../../lib/durable';
import { PostgresStorage } from '../../../lib/durable/storage';
import { type AgentAnswer, checkAnswer, loopSettings, recordTool, scriptedModel } from '../agent';
import type { DurableSystem, SystemOptions } from '../system';

export class GnlSystem implements DurableSystem {
  readonly name = 'GNL';
  private readonly storage: PostgresStorage;

  constructor(private readonly options: SystemOptions) {
    this.storage = new PostgresStorage({ connectionString: options.url });
  }

  async run(runId: string): Promise<AgentAnswer> {
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
    return this.run(runId);
  }

  close(): Promise<void> {
    return this.storage.close();
  }
}

export { SideEffectRetryBlockedError };
