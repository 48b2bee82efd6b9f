/**
 * How a completed run's answer is journaled (`recordCompletion`: on its run-complete) and given back.
 * runDurable's answer for a run that is completed: the result its run-complete recorded (completed-result.ts),
 * after the same check of the start input as any invocation (a different job under this runId is
 * RunDivergedError, a completed run is never migrated). Undefined when the run is not completed or
 * recorded no answer: the caller goes on (and replays, for a completed run without one).
 */
import type { GenerateTextResult, OutputInterface as OutputSpec, ToolSet } from 'ai';
import { isRecordedAnswer, outputOfAnswer, type RecordedAnswer, rebuiltResult, recordedAnswer } from './completed-result';
import { JournalDataError, RunDivergedError } from '../errors';
import type { RunInput } from '../journal/events';
import type { DurableResult } from './durable-result';
import { runInputDifferences } from './run-input';
import type { RunSession } from './run-session';
import type { RunState } from '../projection/run-state';

export async function answerFromRecord<TOOLS extends ToolSet>(args: {
  runId: string;
  state: RunState;
  /** This call's start input, compared with the recorded one. */
  input: RunInput;
  /** This call's options: its runtimeContext and toolsContext (default {}, as generateText's) go on the steps, its output spec parses `output`. */
  context: object;
}): Promise<DurableResult<TOOLS> | undefined> {
  const { runId, state, input } = args;
  if (state.status !== 'completed' || !isRecordedAnswer(state.completedAnswer)) return undefined;
  const differences = state.input ? runInputDifferences(state.input, input) : [];
  if (differences.length > 0) throw new RunDivergedError({ runId, differences });
  const answer = state.completedAnswer;
  const { runtimeContext = {}, toolsContext = {}, output: spec } = args.context as { runtimeContext?: unknown; toolsContext?: unknown; output?: OutputSpec };
  let output: unknown;
  try {
    output = await outputOfAnswer(answer, spec, state.modelSteps[answer.steps.at(-1)?.stepNumber ?? -1]);
  } catch {
    return undefined; // the replay parses it again and says why it fails
  }
  const result = rebuiltResult<TOOLS>(answer, { runtimeContext, toolsContext, output });
  return completedDurableResult(runId, result, result.steps.length);
}

/** The completed DurableResult of an SDK result (the loop's, or one rebuilt from the record). */
export function completedDurableResult<TOOLS extends ToolSet>(
  runId: string,
  result: GenerateTextResult<TOOLS, any, any>,
  replayedSteps: number,
): DurableResult<TOOLS> {
  const completed = {
    status: 'completed' as const,
    runId,
    text: result.text,
    content: result.content,
    steps: result.steps,
    toolCalls: result.toolCalls,
    toolResults: result.toolResults,
    finishReason: result.finishReason,
    usage: result.usage,
    totalUsage: result.totalUsage,
    response: result.response,
    replayedSteps,
    result,
  };
  // A getter, as on the SDK's result: reading an output that is not there throws there and then.
  return Object.defineProperty(completed, 'output', { enumerable: true, get: () => result.output }) as DurableResult<TOOLS>;
}

/**
 * The run-complete, with the SDK's answer (completed-result.ts). An answer the journal refuses (too large,
 * a value json-codec cannot hold) is left out: the run completes all the same and later calls replay it.
 */
export async function recordCompletion(session: RunSession, result: GenerateTextResult<any, any, any>): Promise<void> {
  const complete = { type: 'run-complete' as const, text: result.text, finishReason: result.finishReason, steps: result.steps.length };
  const answer = answerOf(result);
  if (answer) {
    try {
      await session.append({ ...complete, answer });
      return;
    } catch (error) {
      if (!JournalDataError.isInstance(error) || session.fatal !== undefined) throw error;
    }
  }
  await session.append(complete);
}

/** The answer to record; none when the result is not shaped as expected (no reason to fail a completed run: it replays). */
function answerOf(result: GenerateTextResult<any, any, any>): RecordedAnswer | undefined {
  try {
    return recordedAnswer(result);
  } catch {
    return undefined;
  }
}
