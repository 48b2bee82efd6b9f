/**
 * askPerson: a tool the model calls to ask a person, and whose result a person gives. It has no execute,
 * so runDurable journals the call and the run waits (`waiting-tool-result`) until someone answers through
 * the journal (journal.provideToolResult, `gnl provide`, the Studio's inbox form from `outputSchema`); the
 * next resume hands the answer to the model as the tool's result. The answer is checked against
 * `outputSchema` wherever the operator API is given it (the Studio and the CLI find it through the agent).
 */
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import { type Tool, tool } from 'ai';
import { z } from 'zod';

export function askPerson<OUTPUT, INPUT = Record<string, never>>(args: {
  /** What the model is told the tool is for: whom it asks, about what. */
  description: string;
  /** What the model gives with the question. Default: nothing (an empty object). */
  inputSchema?: FlexibleSchema<INPUT>;
  /** What the person answers: the Studio's form is made from it, and answers that do not match it are refused. */
  outputSchema: FlexibleSchema<OUTPUT>;
}): Tool<INPUT, OUTPUT> {
  const inputSchema = (args.inputSchema ?? z.object({})) as FlexibleSchema<INPUT>;
  // No execute: the SDK's loop leaves the call unanswered, and runDurable waits for a person's answer.
  // (The SDK's Tool type ties outputSchema to execute generically; the shape is a plain client-side tool.)
  return tool({ description: args.description, inputSchema, outputSchema: args.outputSchema } as unknown as Tool<INPUT, OUTPUT>);
}
