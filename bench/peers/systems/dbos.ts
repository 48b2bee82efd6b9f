/**
 * DBOS 5.3 (@dbos-inc/dbos-sdk). The SDK ships no AI SDK middleware (none in 5.3.0, and no @dbos-inc
 * package for it on npm), so the agent runs the documented way: generateText inside a DBOS workflow,
 * each model call a DBOS step (an AI SDK language-model middleware whose wrapGenerate is DBOS.runStep)
 * and each tool call a DBOS step (the tool's execute inside DBOS.runStep).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { generateText, type LanguageModel, type Tool, wrapLanguageModel } from 'ai';
import { type AgentAnswer, checkAnswer, type Effect, loopSettings, PROMPT, recordTool, scriptedModel } from '../agent';
import type { DurableSystem, SystemOptions } from '../system';

function dbosModel(model: Exclude<LanguageModel, string>) {
  return wrapLanguageModel({
    model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
    middleware: {
      specificationVersion: 'v4',
      wrapGenerate: ({ doGenerate }) => DBOS.runStep(async () => await doGenerate(), { name: 'model.generate' }),
    } as Parameters<typeof wrapLanguageModel>[0]['middleware'],
  });
}

function dbosTool<T extends Tool>(t: T, name: string): T {
  const execute = t.execute;
  if (!execute) return t;
  return { ...t, execute: (input: unknown, options: unknown) => DBOS.runStep(() => Promise.resolve((execute as any)(input, options)), { name }) } as T;
}

let effect: Effect | undefined;

async function agentWorkflow(prompt: string): Promise<AgentAnswer> {
  const result = await generateText({
    model: dbosModel(scriptedModel()),
    tools: { record: dbosTool(recordTool(effect), 'tool.record') },
    ...loopSettings,
    prompt,
  });
  return { text: result.text, steps: result.steps.length };
}

const registered = DBOS.registerWorkflow(agentWorkflow, { name: 'gnl-peers-agent' });

export class DbosSystem implements DurableSystem {
  readonly name = 'DBOS 5.3';

  private constructor() {}

  /** Configures and launches DBOS (one per process: DBOS is a singleton). Launch recovers this executor's pending workflows. */
  static async launch(options: SystemOptions): Promise<DbosSystem> {
    effect = options.effect;
    DBOS.setConfig({ name: 'gnl-peers', systemDatabaseUrl: options.url, logLevel: 'error', runAdminServer: false });
    await DBOS.launch();
    return new DbosSystem();
  }

  async run(runId: string): Promise<AgentAnswer> {
    const handle = await DBOS.startWorkflow(registered, { workflowID: runId })(PROMPT);
    return checkAnswer(this.name, await handle.getResult());
  }

  answer(runId: string): Promise<AgentAnswer> {
    return this.run(runId);
  }

  /** Waits for a workflow started elsewhere (recovered at launch) to end. */
  async result(runId: string): Promise<AgentAnswer> {
    return checkAnswer(this.name, (await DBOS.retrieveWorkflow<AgentAnswer>(runId).getResult()) as AgentAnswer);
  }

  close(): Promise<void> {
    return DBOS.shutdown();
  }
}
