/**
 * What journal.fork takes, checked at the edge (zod): the parent, the step (from 1), who and why, the
 * fork's id, at most one edit. The plan (fork-plan.ts) then checks it against the parent's journal.
 */
import { z } from 'zod';
import { assertValidRunId } from '../identity/run-id';

const runId = z.string().superRefine((value, ctx) => {
  try {
    assertValidRunId(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** Shown, logged and matched as text: no control characters, no lone surrogates. */
const printable = (value: string) => !/[\p{Cc}\p{Cs}]/u.test(value);

export const forkEditSchema = z.union([
  z.object({ instruction: z.string().trim().min(1, 'instruction: give the text the model reads at the fork point').max(20_000) }).strict(),
  z
    .object({
      toolResult: z
        .object({
          toolCallId: z.string().min(1).max(1000),
          output: z.unknown().refine((value) => value !== undefined, 'output: give the tool result (any JSON value; null for none)'),
        })
        .strict(),
    })
    .strict(),
  z.object({ version: z.string().trim().min(1, "version: the workflow's registered version the fork runs").max(200) }).strict(),
]);

export const forkRequestSchema = z.object({
  runId,
  childRunId: runId,
  atStep: z.number().int('atStep: a whole number of model steps').min(1, 'atStep: steps count from 1'),
  by: z.string().trim().min(1, 'by: say who forks').max(200).refine(printable, 'by must contain only printable characters (no control characters)'),
  reason: z.string().trim().min(1, 'reason: say why you fork').max(4000),
  edit: forkEditSchema.optional(),
});

export type JournalForkRequest = z.input<typeof forkRequestSchema>;
