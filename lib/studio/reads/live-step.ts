/**
 * The step a run is generating, as the run page shows it: the last step of its streamed answer (the
 * parts after the answer's last `step-start`), read for a person. Browser-safe and pure: everything in
 * it is what the model or a tool said, shown as text by the page, never as markup.
 */
import { type DynamicToolUIPart, getToolName, isToolUIPart, type ToolUIPart, type UIMessage } from 'ai';

type ToolPart = ToolUIPart | DynamicToolUIPart;

/** A tool call of the step, as far as it got. */
export interface LiveToolCall {
  toolCallId: string;
  toolName: string;
  /** The SDK's state of the call. */
  state: ToolPart['state'];
  /** What the state means to a person: "planned", "waiting for approval", … */
  stateLabel: string;
  /** Present once the whole input is known (the stream log leaves out the partial inputs). */
  input?: unknown;
  hasInput: boolean;
  errorText?: string;
}

export interface LiveStep {
  /** 1-based: the answer's steps so far, the recorded ones it replayed included. */
  step: number;
  /** The step's text so far (its text parts, in order). */
  text: string;
  reasoning: string;
  toolCalls: LiveToolCall[];
}

/** Keyed by the SDK's own union: a state it adds fails to compile until it has words. */
const STATE_LABEL = {
  'input-streaming': 'planning its input',
  'input-available': 'planned',
  'approval-requested': 'waiting for approval',
  'approval-responded': 'decided',
  'output-available': 'returned',
  'output-error': 'failed',
  'output-denied': 'denied',
} satisfies Record<ToolPart['state'], string>;

/** The last step of `message`; undefined before its first step starts. */
export function liveStepOf(message: UIMessage | undefined): LiveStep | undefined {
  if (!message) return undefined;
  const starts = message.parts.flatMap((part, i) => (part.type === 'step-start' ? [i] : []));
  const from = starts.at(-1);
  if (from === undefined) return undefined;
  const parts = message.parts.slice(from + 1);
  const step: LiveStep = { step: starts.length, text: '', reasoning: '', toolCalls: [] };
  for (const part of parts) {
    if (part.type === 'text') step.text += part.text;
    else if (part.type === 'reasoning') step.reasoning += part.text;
    else if (isToolUIPart(part)) step.toolCalls.push(toolCallOf(part));
  }
  return step;
}

function toolCallOf(part: ToolPart): LiveToolCall {
  const hasInput = part.state !== 'input-streaming' && part.input !== undefined;
  let stateLabel: string = STATE_LABEL[part.state];
  if (part.state === 'approval-responded') stateLabel = part.approval.approved ? 'approved' : 'rejected';
  return {
    toolCallId: part.toolCallId,
    toolName: getToolName(part),
    state: part.state,
    stateLabel,
    ...(hasInput ? { input: part.input } : {}),
    hasInput,
    ...(part.state === 'output-error' ? { errorText: part.errorText } : {}),
  };
}
