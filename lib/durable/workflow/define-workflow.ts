/**
 * defineWorkflow: a workflow is a registered, versioned function of a typed input that a worker runs as
 * a run (run-workflow.ts). Its name is what the run records, so any process finds it to continue it; its
 * events are the ones it may wait for, each with the schema a sent payload must match.
 */
import { plainIssueMessage } from '../tools/plain-issues';
import type { EmbeddingModel } from 'ai';
import { z } from 'zod';
import { WorkflowInputError } from '../errors';
import type { MemoryStore } from '../memory/memory-store';
import type { WorkflowContext } from './workflow-context';
import { WORKFLOW_NAME } from './workflow-name';

const WORKFLOW = Symbol.for('gnl.workflow');

export interface WorkflowDefinition<INPUT extends z.ZodType, OUTPUT> {
  name: string;
  /** Recorded with each run. A run continues on a changed version while its recorded steps replay in the same order (else it stops, diverged). Default '1'. */
  version?: string;
  /** One line for people (the Studio, `gnl` listings). */
  description?: string;
  /** The input's schema: a start with an input that does not match is refused (WorkflowInputError), nothing written. */
  input: INPUT;
  /** The events the workflow waits for, by name, with their payload's schema: a payload that does not match is refused when sent. */
  events?: Record<string, z.ZodType>;
  /** The workflow itself: deterministic between its primitives (wf.step, wf.sleep, wf.waitForEvent, wf.child, wf.all, wf.now, wf.random). */
  run: (wf: WorkflowContext, input: z.output<INPUT>) => Promise<OUTPUT>;
  /** Days its ended runs are kept (1 to 36,500, or 'forever'); unset: the fleet's GNL_RETENTION_DAYS (docs/operations.md#retention). */
  retentionDays?: number | 'forever';
  /**
   * Its runs' memory (`wf.memory`, docs/memory.md#in-a-workflow): a run started with a `subject` is given
   * that resource's memory, in `store` or else the executor's. Not part of the version.
   */
  memory?: WorkflowMemoryDeclaration;
}

/** What a registered workflow declares of its runs' memory; the resource is each run's subject. */
export interface WorkflowMemoryDeclaration {
  store?: MemoryStore | (() => MemoryStore);
  embeddingModel?: EmbeddingModel;
  topK?: number;
}

export interface Workflow<INPUT extends z.ZodType = z.ZodType, OUTPUT = unknown> {
  readonly kind: 'workflow';
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly input: INPUT;
  readonly events: Readonly<Record<string, z.ZodType>>;
  readonly run: (wf: WorkflowContext, input: z.output<INPUT>) => Promise<OUTPUT>;
  readonly retentionDays: number | 'forever' | undefined;
  readonly memory: WorkflowMemoryDeclaration | undefined;
}

export function defineWorkflow<INPUT extends z.ZodType, OUTPUT>(definition: WorkflowDefinition<INPUT, OUTPUT>): Workflow<INPUT, OUTPUT> {
  const problems: string[] = [];
  const { name, version = '1', description, input, events = {}, run, retentionDays, memory } = definition ?? ({} as WorkflowDefinition<INPUT, OUTPUT>);
  if (typeof name !== 'string' || !WORKFLOW_NAME.test(name))
    problems.push('name: lower-case letters, digits and dashes, starting with a letter, at most 64 characters');
  if (typeof version !== 'string' || version.length === 0 || version.length > 64) problems.push('version: 1 to 64 characters');
  if (!(input instanceof z.ZodType)) problems.push('input: a zod schema');
  for (const [event, schema] of Object.entries(events)) {
    if (!WORKFLOW_NAME.test(event)) problems.push(`events.${event}: an event name is lower-case letters, digits and dashes`);
    if (!(schema instanceof z.ZodType)) problems.push(`events.${event}: a zod schema`);
  }
  if (typeof run !== 'function') problems.push('run: the workflow function, (wf, input) => Promise<output>');
  if (retentionDays !== undefined && retentionDays !== 'forever' && !(Number.isInteger(retentionDays) && retentionDays >= 1 && retentionDays <= 36_500))
    problems.push("retentionDays: a whole number of days from 1 to 36500, or 'forever'");
  if (memory !== undefined) {
    if (typeof memory !== 'object' || memory === null) problems.push('memory: { store?, embeddingModel?, topK? }');
    else if (memory.topK !== undefined && !(Number.isInteger(memory.topK) && memory.topK >= 1 && memory.topK <= 20)) problems.push('memory.topK: 1 to 20');
  }
  if (problems.length > 0) throw new WorkflowInputError({ what: 'defineWorkflow refused the definition', problems });
  return Object.freeze({
    kind: 'workflow' as const,
    name,
    version,
    ...(description !== undefined ? { description } : {}),
    input,
    events: Object.freeze({ ...events }),
    run,
    retentionDays,
    memory,
    [WORKFLOW]: true,
  });
}

export function isWorkflow(value: unknown): value is Workflow {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[WORKFLOW] === true;
}

/** The workflow's input parsed by its schema: WorkflowInputError listing every problem, the zod error as its cause. */
export function parseWorkflowInput<INPUT extends z.ZodType>(workflow: Workflow<INPUT>, given: unknown): z.output<INPUT> {
  const parsed = workflow.input.safeParse(given);
  if (parsed.success) return parsed.data;
  throw new WorkflowInputError({
    what: `workflow "${workflow.name}" refused the input`,
    problems: parsed.error.issues.map((issue) => `input${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${plainIssueMessage(issue.message)}`),
    cause: parsed.error,
  });
}
