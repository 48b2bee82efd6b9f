/**
 * A registered workflow as JSON Schema (its input and each event's payload), for the command line's
 * `gnl workflows` and the Studio's send-event form: what people and other services may send it.
 */
import { z } from 'zod';
import type { Workflow } from '@/lib/durable';

export interface WorkflowDescription {
  name: string;
  version: string;
  description: string;
  input: unknown;
  events: Record<string, unknown>;
}

/** A schema as JSON Schema; what JSON Schema cannot say (a transform, a date) is left open rather than refused. */
export function jsonSchemaOf(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { unrepresentable: 'any' });
}

export function describeWorkflow(workflow: Workflow): WorkflowDescription {
  return {
    name: workflow.name,
    version: workflow.version,
    description: workflow.description ?? '',
    input: jsonSchemaOf(workflow.input),
    events: Object.fromEntries(Object.entries(workflow.events).map(([name, schema]) => [name, jsonSchemaOf(schema)])),
  };
}
