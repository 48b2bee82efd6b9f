/**
 * A completed run answers from its record: the SDK's result is journaled once, on the run's
 * `run-complete` (its `answer`), and every later call with the runId rebuilds the result from it
 * without running the loop again (no prompt converted, no request hashed; its steps go to the step and
 * finish callbacks, `replayed: true`, from the rebuilt result: replay-callbacks.ts).
 *
 * Why the SDK's answer, not a re-derivation from the model steps and tool events: what a step result
 * holds is the SDK's work on the model's raw answer (tool calls parsed by each tool's schema, tool
 * outputs shaped by toModelOutput into response messages, approval parts, usage sums) in functions the
 * `ai` package does not export (DefaultStepResult, parseToolCall, toResponseMessages); re-deriving it
 * here would copy them and drift with each release. What the record cannot hold is never invented:
 * - `callId` is new for each call, as the replay's is (the SDK generates one per generateText);
 * - `runtimeContext` and `toolsContext` are this call's (not journaled: user values, often not JSON),
 *   as the replay's are, unless a prepareStep could change them: such a call replays instead;
 * - `output` is parsed again from the final step with this call's output spec, as a replay's is (a call may
 *   ask for another output than the one that completed the run; a parse that throws replays instead);
 * - a run completed before answers were recorded, or whose answer could not be journaled (too large, a
 *   value json-codec refuses), has none: it replays (runDurable's old path).
 * A run completed by streamDurable records its stream's steps: the same as a replay's but for a response
 * timestamp its provider did not send, which the SDK stamps as it streams (recorded) and a replay stamps
 * again each time (completed-result.test.ts).
 * `performance` and approval ids are the completing invocation's (a replay makes up its own each time).
 */
import {
  createIdGenerator,
  DefaultGeneratedFile,
  type GenerateTextResult,
  NoOutputGeneratedError,
  Output,
  type OutputInterface as OutputSpec,
  type ToolSet,
} from 'ai';

/** The SDK's own call ids: `call-` and 24 characters. */
const generateCallId = createIdGenerator({ prefix: 'call', size: 24 });

/** What run-complete records of the SDK's result (stored through json-codec: Dates, bytes and Errors survive). */
export interface RecordedAnswer {
  /** The shape's version, so a later one can be told apart (rows are never rewritten). */
  v: 1;
  steps: RecordedStep[];
  /** Response messages the loop made before its first step (approvals passed in the prompt's messages). */
  initialResponseMessages: unknown[];
  totalUsage: unknown;
}

interface RecordedStep {
  stepNumber: number;
  model: { provider: string; modelId: string };
  /** The step's content, files as `{ base64, mediaType }` (a GeneratedFile is rebuilt from them). */
  content: Record<string, unknown>[];
  finishReason: unknown;
  rawFinishReason: unknown;
  usage: unknown;
  performance: unknown;
  warnings: unknown;
  request: unknown;
  response: unknown;
  providerMetadata: unknown;
}

type AnyResult = GenerateTextResult<ToolSet, any, any>;
type AnyStep = AnyResult['steps'][number];

/** The answer to journal on run-complete. */
export function recordedAnswer(result: AnyResult): RecordedAnswer {
  const stepMessages = result.steps.reduce((n, step) => n + step.response.messages.length, 0);
  const responseMessages = result.responseMessages;
  return {
    v: 1,
    steps: result.steps.map(recordedStep),
    initialResponseMessages: responseMessages.slice(0, responseMessages.length - stepMessages),
    totalUsage: result.totalUsage,
  };
}

function recordedStep(step: AnyStep): RecordedStep {
  return {
    stepNumber: step.stepNumber,
    model: { provider: step.model.provider, modelId: step.model.modelId },
    content: step.content.map((part) => {
      const file = (part as { file?: { base64: string; mediaType: string } }).file;
      return file ? { ...part, file: { base64: file.base64, mediaType: file.mediaType } } : { ...part };
    }),
    finishReason: step.finishReason,
    rawFinishReason: step.rawFinishReason,
    usage: step.usage,
    performance: step.performance,
    warnings: step.warnings,
    request: step.request,
    response: step.response,
    providerMetadata: step.providerMetadata,
  };
}

/** Whether a journaled answer is one this version reads (`v: 1`). */
export function isRecordedAnswer(value: unknown): value is RecordedAnswer {
  return typeof value === 'object' && value !== null && (value as { v?: unknown }).v === 1 && Array.isArray((value as { steps?: unknown }).steps);
}

/**
 * The SDK's result, rebuilt from a recorded answer: the same fields and getters as its DefaultGenerateTextResult.
 * `output`: what `outputOfAnswer` parsed (undefined: reading it throws NoOutputGeneratedError, as the SDK's).
 */
export function rebuiltResult<TOOLS extends ToolSet>(
  answer: RecordedAnswer,
  context: { runtimeContext: unknown; toolsContext: unknown; output: unknown },
): GenerateTextResult<TOOLS, any, any> {
  const callId = generateCallId();
  const steps = answer.steps.map((step) => new RebuiltStep(step, callId, context));
  return new RebuiltResult(answer, steps, context.output) as unknown as GenerateTextResult<TOOLS, any, any>;
}

/**
 * The structured output as the SDK parses it at the end of its loop, with this call's `output` spec (the
 * default: text), so it follows the call as a replay's does: parsed from the final step when the loop
 * ended on an answer (finish reason stop, or text with no tool calls), from the last model result's
 * structuredOutputText for a JSON format. Throws what the spec's parse throws.
 */
export async function outputOfAnswer(answer: RecordedAnswer, spec: OutputSpec | undefined, lastModelResult: unknown): Promise<unknown> {
  const last = answer.steps.at(-1);
  if (!last) return undefined;
  const text = last.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');
  if (!(last.finishReason === 'stop' || (last.finishReason !== 'tool-calls' && text.length > 0))) return undefined;
  const specification = spec ?? Output.text();
  const structured = (lastModelResult as { structuredOutputText?: string } | undefined)?.structuredOutputText;
  const textForOutput = (await specification.responseFormat)?.type === 'json' ? (structured ?? text) : text;
  return specification.parseCompleteOutput({ text: textForOutput }, { response: last.response, usage: last.usage, finishReason: last.finishReason } as never);
}

type Part = Record<string, any>;

/** A step as the SDK's DefaultStepResult has it: recorded fields, and the same getters. */
class RebuiltStep {
  readonly callId: string;
  readonly stepNumber: number;
  readonly model: { provider: string; modelId: string };
  readonly runtimeContext: unknown;
  readonly toolsContext: unknown;
  readonly content: Part[];
  readonly finishReason: unknown;
  readonly rawFinishReason: unknown;
  readonly usage: unknown;
  readonly performance: unknown;
  readonly warnings: unknown;
  readonly request: unknown;
  readonly response: unknown;
  readonly providerMetadata: unknown;

  constructor(step: RecordedStep, callId: string, context: { runtimeContext: unknown; toolsContext: unknown }) {
    this.callId = callId;
    this.stepNumber = step.stepNumber;
    this.model = step.model;
    this.runtimeContext = context.runtimeContext;
    this.toolsContext = context.toolsContext;
    this.content = step.content.map((part) => {
      const file = part.file as { base64: string; mediaType: string } | undefined;
      return file ? { ...part, file: new DefaultGeneratedFile({ data: file.base64, mediaType: file.mediaType }) } : part;
    });
    this.finishReason = step.finishReason;
    this.rawFinishReason = step.rawFinishReason;
    this.usage = step.usage;
    this.performance = step.performance;
    this.warnings = step.warnings;
    this.request = step.request;
    this.response = step.response;
    this.providerMetadata = step.providerMetadata;
  }
  get text(): string {
    return this.content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join('');
  }
  get reasoning(): Part[] {
    return this.content
      .filter((part) => part.type === 'reasoning' || part.type === 'reasoning-file')
      .map((part) =>
        part.type === 'reasoning'
          ? { type: 'reasoning', text: part.text, ...(part.providerMetadata != null ? { providerOptions: part.providerMetadata } : {}) }
          : {
              type: 'reasoning-file',
              data: part.file.base64,
              mediaType: part.file.mediaType,
              ...(part.providerMetadata != null ? { providerOptions: part.providerMetadata } : {}),
            },
      );
  }
  get reasoningText(): string | undefined {
    const text = this.reasoning.map((part) => ('text' in part ? part.text : '')).join('');
    return text.length > 0 ? text : undefined;
  }
  get files(): unknown[] {
    return this.content.filter((part) => part.type === 'file').map((part) => part.file);
  }
  get sources(): Part[] {
    return this.content.filter((part) => part.type === 'source');
  }
  get toolCalls(): Part[] {
    return this.content.filter((part) => part.type === 'tool-call');
  }
  get staticToolCalls(): Part[] {
    return this.toolCalls.filter((call) => call.dynamic !== true);
  }
  get dynamicToolCalls(): Part[] {
    return this.toolCalls.filter((call) => call.dynamic === true);
  }
  get toolResults(): Part[] {
    return this.content.filter((part) => part.type === 'tool-result');
  }
  get staticToolResults(): Part[] {
    return this.toolResults.filter((result) => result.dynamic !== true);
  }
  get dynamicToolResults(): Part[] {
    return this.toolResults.filter((result) => result.dynamic === true);
  }
}

/** The whole result as the SDK's DefaultGenerateTextResult has it. */
class RebuiltResult {
  readonly steps: RebuiltStep[];
  readonly totalUsage: unknown;
  private readonly initialResponseMessages: unknown[];
  private readonly parsedOutput: unknown;

  constructor(answer: RecordedAnswer, steps: RebuiltStep[], output: unknown) {
    this.steps = steps;
    this.totalUsage = answer.totalUsage;
    this.initialResponseMessages = answer.initialResponseMessages;
    this.parsedOutput = output;
  }
  get finalStep(): RebuiltStep {
    return this.steps.at(-1) as RebuiltStep;
  }
  get content() {
    return this.steps.flatMap((step) => step.content);
  }
  get text() {
    return this.finalStep.text;
  }
  get files() {
    return this.steps.flatMap((step) => step.files);
  }
  get reasoningText() {
    return this.finalStep.reasoningText;
  }
  get reasoning() {
    return this.finalStep.reasoning.map((part) =>
      part.type === 'reasoning'
        ? { type: 'reasoning', text: part.text, ...(part.providerOptions != null ? { providerMetadata: part.providerOptions } : {}) }
        : {
            type: 'reasoning-file',
            file: new DefaultGeneratedFile({ data: part.data, mediaType: part.mediaType }),
            ...(part.providerOptions != null ? { providerMetadata: part.providerOptions } : {}),
          },
    );
  }
  get toolCalls() {
    return this.steps.flatMap((step) => step.toolCalls);
  }
  get staticToolCalls() {
    return this.steps.flatMap((step) => step.staticToolCalls);
  }
  get dynamicToolCalls() {
    return this.steps.flatMap((step) => step.dynamicToolCalls);
  }
  get toolResults() {
    return this.steps.flatMap((step) => step.toolResults);
  }
  get staticToolResults() {
    return this.steps.flatMap((step) => step.staticToolResults);
  }
  get dynamicToolResults() {
    return this.steps.flatMap((step) => step.dynamicToolResults);
  }
  get sources() {
    return this.steps.flatMap((step) => step.sources);
  }
  get finishReason() {
    return this.finalStep.finishReason;
  }
  get rawFinishReason() {
    return this.finalStep.rawFinishReason;
  }
  get warnings() {
    return this.steps.flatMap((step) => (step.warnings as unknown[] | undefined) ?? []);
  }
  get providerMetadata() {
    return this.finalStep.providerMetadata;
  }
  get response() {
    return this.finalStep.response;
  }
  get responseMessages() {
    return [...this.initialResponseMessages, ...this.steps.flatMap((step) => (step.response as { messages: unknown[] }).messages)];
  }
  get request() {
    return this.finalStep.request;
  }
  get usage() {
    return this.totalUsage;
  }
  get output(): unknown {
    if (this.parsedOutput == null) throw new NoOutputGeneratedError();
    return this.parsedOutput;
  }
}
