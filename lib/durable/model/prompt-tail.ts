/**
 * A resumed run's recorded steps replayed with the tail of their prompt (issue 31: resume time per
 * recorded step flat in the run's length).
 *
 * The SDK's loop converts a step's whole prompt again at every step (convertToLanguageModelPrompt and
 * downloadAssets over every message so far), so replaying N recorded steps converted N²/2 messages:
 * 1,500 recorded steps took twice as long per step as 100. A recorded step's model is not asked (its
 * answer is the journal's); its prompt is needed only for its request hash, a chain over the prompt's
 * messages (request-hash.ts) that needs only what the step added. So runDurable's prepareStep gives such
 * a step only the messages new since the step before, the recording model hashes it as the whole prompt
 * (RequestHasher.hashTail: the same hash), and the first step given whole again gets the whole history,
 * kept here. The SDK carries a step's messages forward, so once a tail was given every later step is
 * given its messages from here.
 *
 * A step is given its tail only when nothing can see the difference:
 * - the caller gave no prepareStep (it reads and may rewrite the messages), no onStepStart or
 *   onLanguageModelCallStart (they receive them), no repairToolCall or refineToolInput, no tool callers,
 *   no `include: { requestMessages: true }` (the step's result would keep them), and no tool has
 *   onInputStart, onInputDelta or onInputAvailable (called with them for every call, replayed ones too) (`allowed`);
 * - the step and the one after it are recorded, and every call of the step has its outcome recorded (or a
 *   rejection): no tool of it executes and no approval policy is asked on this replay (they see the messages);
 * - its new messages are the step before's answer (assistant, then tool messages): converted alone they
 *   are what the whole prompt's conversion makes of them (a tool message right after a tool message would
 *   be merged into it);
 * - the step before was hashed with version 2 (a run recorded before it hashes every step whole).
 * Integrations registered for telemetry hear no replayed step (replay-telemetry.ts); the SDK's `ai:telemetry`
 * tracing channel, which cannot be filtered, sees a replayed step's tail (docs/operations.md, "Traces").
 */
import type { ModelMessage, ToolSet } from 'ai';

/** What the caller gave that reads a step's messages: none of it, and recorded steps may be given their tail. */
export function promptTailAllowed(options: Record<string, unknown>, tools: ToolSet, prepareStep: unknown): boolean {
  if (prepareStep !== undefined) return false;
  for (const name of READERS) if (options[name] !== undefined) return false;
  const include = (options.include ?? options.experimental_include) as { requestMessages?: unknown } | undefined;
  if (include?.requestMessages) return false;
  return Object.values(tools).every((tool) => {
    const hooks = tool as { onInputStart?: unknown; onInputDelta?: unknown; onInputAvailable?: unknown };
    return hooks.onInputStart === undefined && hooks.onInputDelta === undefined && hooks.onInputAvailable === undefined;
  });
}

const READERS = [
  'onStepStart',
  'experimental_onStepStart',
  'onLanguageModelCallStart',
  'experimental_onLanguageModelCallStart',
  'repairToolCall',
  'experimental_repairToolCall',
  'refineToolInput',
  'experimental_refineToolInput',
  'experimental_toolCallers',
];

/** Whether every tool call a recorded model step asked for has its outcome (or a rejection) in the journal. */
export function settledStep(
  state: { operationOfCall(toolCallId: string): { result?: unknown } | undefined; approvals: ReadonlyMap<string, { decision?: { approved: boolean } }> },
  recorded: unknown,
): boolean {
  const content = (recorded as { content?: { type: string; toolCallId?: string }[] } | undefined)?.content ?? [];
  return content.every(
    (part) =>
      part.type !== 'tool-call' ||
      (part.toolCallId !== undefined &&
        (state.operationOfCall(part.toolCallId)?.result !== undefined || state.approvals.get(part.toolCallId)?.decision?.approved === false)),
  );
}

/** One invocation's steps: which get their tail, and the whole history the others get. */
export class PromptTail {
  /** The whole history while the SDK holds a tail (its messages are the last tail plus what followed). */
  private whole: ModelMessage[] | undefined;
  /** How many messages the SDK was given at the last step, while it holds a tail. */
  private given = 0;
  /** How many messages of the whole history the last step's prompt held. */
  private covered = 0;
  /** The step whose prompt is its tail (the recording model hashes it as the whole prompt). */
  tailStep: number | undefined;

  /**
   * The messages to give step `stepNumber` (undefined: the SDK's own). `messages`: what the SDK would
   * give it; `instruct`: a whole history with the fork's instruction added when this step has one
   * (fork-instruction.ts), else undefined; `tail`: whether the step may be given its tail (it and the next
   * recorded, its calls settled, the hash chain whole: runDurable's prepareStep decides).
   */
  messagesFor(args: {
    stepNumber: number;
    messages: ModelMessage[];
    instruct: (whole: ModelMessage[]) => ModelMessage[] | undefined;
    tail: boolean;
  }): ModelMessage[] | undefined {
    const { stepNumber, messages } = args;
    let whole: ModelMessage[];
    if (this.whole) {
      this.whole.push(...messages.slice(this.given));
      whole = this.whole;
    } else {
      whole = messages;
    }
    const instructed = args.instruct(whole);
    if (instructed) whole = instructed;
    const added = whole.slice(this.covered);
    this.covered = whole.length;
    if (args.tail && stepNumber > 0 && isAnswer(added)) {
      // The SDK's own array is not changed here: the history is copied once, when the first tail is given.
      this.whole ??= whole === messages ? [...whole] : whole;
      this.given = added.length;
      this.tailStep = stepNumber;
      return added;
    }
    this.tailStep = undefined;
    if (!this.whole && !instructed) return undefined;
    // The SDK holds the whole history again: its next messages are these plus the step's answer.
    this.whole = undefined;
    return [...whole];
  }
}

/** A step's answer as the SDK appends it: an assistant message, then tool messages. */
function isAnswer(messages: ModelMessage[]): boolean {
  return messages[0]?.role === 'assistant' && messages.every((message) => message.role === 'assistant' || message.role === 'tool');
}
