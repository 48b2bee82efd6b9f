/**
 * The Vercel Workflow "workflow bundle", written by hand as its compiler would emit it for a
 * "use workflow" function: it runs inside Workflow's deterministic VM, registers itself on
 * globalThis.__private_workflows, and reaches its steps through the WORKFLOW_USE_STEP symbol. The AI SDK
 * loop (generateText) runs here; each model call and each tool call is a Workflow step. The second
 * workflow is the 20-step one of workflow-steps.ts (each step a side effect returning a small value).
 */
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';

export const WORKFLOW_ID = 'workflow//./bench/peers/agent//agent';
export const MODEL_STEP = 'step//./bench/peers/agent//model';
export const TOOL_STEP = 'step//./bench/peers/agent//record';
/** The 20-step workflow of bench/peers/workflow-steps.ts: each step a side effect returning a small value. */
export const STEPS_WORKFLOW_ID = 'workflow//./bench/peers/workflow-steps//steps';
export const RECORD_STEP = 'step//./bench/peers/workflow-steps//record';
export const WORKFLOW_STEP_COUNT = 20;

const g = globalThis as any;
const useStep = g[Symbol.for('WORKFLOW_USE_STEP')] as (id: string) => (...args: unknown[]) => Promise<any>;

async function agent(prompt: string) {
  const modelStep = useStep(MODEL_STEP);
  const toolStep = useStep(TOOL_STEP);
  const model = {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'bench-v1',
    supportedUrls: {},
    doGenerate: (options: { prompt: unknown }) => modelStep(options.prompt),
    doStream: () => Promise.reject(new Error('not streamed')),
  };
  const record = tool({
    description: 'Records an item in the outside system (a side effect).',
    inputSchema: jsonSchema<{ item: string; amount: number }>({
      type: 'object',
      properties: { item: { type: 'string' }, amount: { type: 'number' } },
      required: ['item', 'amount'],
    }),
    execute: (input) => toolStep(input),
  });
  const result = await generateText({ model: model as any, tools: { record }, stopWhen: stepCountIs(21), prompt, maxRetries: 0 });
  return { text: result.text, steps: result.steps.length };
}
(agent as any).workflowId = WORKFLOW_ID;
g.__private_workflows ??= new Map();
g.__private_workflows.set(WORKFLOW_ID, agent);

async function steps() {
  const record = useStep(RECORD_STEP);
  let count = 0;
  for (let n = 0; n < WORKFLOW_STEP_COUNT; n++) if ((await record(n)).recorded) count++;
  return count;
}
(steps as any).workflowId = STEPS_WORKFLOW_ID;
g.__private_workflows.set(STEPS_WORKFLOW_ID, steps);
