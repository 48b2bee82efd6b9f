/**
 * What runDurable answers: a completed run's text, steps and output, or why it stopped (waiting for an
 * approval or a tool's result, canceled). Its own file because the loop (run-durable.ts) and the answer
 * from a completed run's record (completed-answer.ts) both build it, and neither imports the other.
 */
import type { GenerateTextResult, ToolSet } from 'ai';

export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  input: unknown;
  requestedAt: Date;
  /** When set: past it, the next resume treats the call as rejected ("expired"). */
  expiresAt?: Date;
}

/** A call to a tool without execute, waiting for journal.provideToolResult. */
export interface PendingToolResult {
  toolCallId: string;
  toolName: string;
  input: unknown;
  requestedAt: Date;
}

export type DurableResult<TOOLS extends ToolSet> =
  | {
      status: 'completed';
      runId: string;
      text: string;
      content: GenerateTextResult<TOOLS, any, any>['content'];
      steps: GenerateTextResult<TOOLS, any, any>['steps'];
      toolCalls: GenerateTextResult<TOOLS, any, any>['toolCalls'];
      toolResults: GenerateTextResult<TOOLS, any, any>['toolResults'];
      finishReason: GenerateTextResult<TOOLS, any, any>['finishReason'];
      usage: GenerateTextResult<TOOLS, any, any>['usage'];
      totalUsage: GenerateTextResult<TOOLS, any, any>['totalUsage'];
      response: GenerateTextResult<TOOLS, any, any>['response'];
      /** Model steps this call read back from the journal instead of calling the model. */
      replayedSteps: number;
      /**
       * The structured output (`output: Output.object(…)` and the like), parsed from the final step, so a
       * replay gives the same. Read as the SDK's `result.output`: without one it throws NoOutputGeneratedError.
       */
      readonly output: unknown;
      /** The SDK's own result object. */
      result: GenerateTextResult<TOOLS, any, any>;
    }
  | { status: 'waiting-approval'; runId: string; pending: PendingApproval[] }
  /** Every call it waits for is to a tool without execute (approvals come first: while one is open the status is waiting-approval). */
  | { status: 'waiting-tool-result'; runId: string; pending: PendingToolResult[] }
  | { status: 'canceled'; runId: string; by: string; reason?: string };
