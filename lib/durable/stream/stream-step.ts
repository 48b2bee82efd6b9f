/**
 * A streamed model step, journaled (streamDurable). Text and reasoning deltas pass through as they
 * arrive; the step's tool calls do not: streamText executes a call as soon as its `tool-call` part
 * arrives, before the step has finished, and a side effect must never start before the call that asked
 * for it is durable. So `tool-call` parts are held until the step's `finish`, the whole step is then
 * journaled as one `model-step` (the same shape generateText's steps are recorded in, so either replays
 * the other), and only then are the held calls and the finish let through. The cost is that a streamed
 * step's tools start when the step ends instead of when their call has streamed in. Deltas of a step
 * that never finished are not durable: a resume after a crash mid-step asks the model for that step
 * again; a step that finished is replayed exactly, calls included, never planned again.
 *
 * Tool call ids are made unique in the run as they first appear (the rule of tool-call-ids.ts, applied
 * to the streamed parts that name them: `tool-input-*`, `tool-call`, `tool-result`), so a call's input
 * deltas and its call carry the same id.
 */
import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';

type Part = LanguageModelV4StreamPart;

/** Renames a tool call id already used in the run, or earlier in this answer: `<id>~s<step>.<n>`. */
export class CallIdRenamer {
  private readonly taken: Set<string>;
  private readonly current = new Map<string, string>();
  /** Calls whose input is streaming: their tool-call keeps the name their tool-input-start got. */
  private readonly open = new Set<string>();
  constructor(
    private readonly step: number,
    used: ReadonlySet<string>,
  ) {
    this.taken = new Set(used);
  }

  inputStart(id: string): string {
    this.open.add(id);
    return this.begin(id);
  }

  call(id: string): string {
    if (!this.open.delete(id)) return this.begin(id);
    return this.of(id);
  }

  /** The name a part of a call already begun refers to (its input deltas, a provider's result). */
  of(id: string): string {
    return this.current.get(id) ?? id;
  }

  private begin(id: string): string {
    let name = id;
    if (this.taken.has(id)) {
      let n = 1;
      while (this.taken.has(`${id}~s${this.step}.${n}`)) n += 1;
      name = `${id}~s${this.step}.${n}`;
    }
    this.taken.add(name);
    this.current.set(id, name);
    return name;
  }
}

/** Accumulates a streamed answer into the result generateText's model call would have returned. */
export class StepAssembly {
  private readonly content: LanguageModelV4Content[] = [];
  private readonly blocks = new Map<string, { type: 'text' | 'reasoning'; text: string; providerMetadata?: SharedV4ProviderMetadata }>();
  warnings: SharedV4Warning[] = [];
  response: Record<string, unknown> | undefined;
  finish: { finishReason: LanguageModelV4FinishReason; usage: LanguageModelV4Usage; providerMetadata?: SharedV4ProviderMetadata } | undefined;

  add(part: Part): void {
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start': {
        const block = {
          type: part.type === 'text-start' ? ('text' as const) : ('reasoning' as const),
          text: '',
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        };
        this.blocks.set(`${block.type}:${part.id}`, block);
        this.content.push(block as LanguageModelV4Content);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = this.blocks.get(`${part.type === 'text-delta' ? 'text' : 'reasoning'}:${part.id}`);
        if (block) {
          block.text += part.delta;
          return;
        }
        // A delta with no start before it (a lax provider): its block starts here.
        this.add({ type: part.type === 'text-delta' ? 'text-start' : 'reasoning-start', id: part.id });
        this.add(part);
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        const block = this.blocks.get(`${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`);
        if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
        return;
      }
      case 'stream-start':
        this.warnings = part.warnings;
        return;
      case 'response-metadata': {
        const { type: _type, ...metadata } = part;
        this.response = metadata;
        return;
      }
      case 'finish':
        this.finish = { finishReason: part.finishReason, usage: part.usage, ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}) };
        return;
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'ping':
      case 'raw':
      case 'error':
        return;
      default:
        // A discrete part: a tool call or result, a source, a file, custom content.
        this.content.push(part as LanguageModelV4Content);
    }
  }

  result(): LanguageModelV4GenerateResult {
    const finish = this.finish;
    if (!finish) throw new TypeError('StepAssembly.result() before the finish part');
    // A block that stayed empty (a provider's opening `content: ""`) says nothing: generateText's answer has no part for it.
    const said = this.content.filter((part) => !((part.type === 'text' || part.type === 'reasoning') && part.text === '' && !part.providerMetadata));
    return {
      content: said.map((part) => ({ ...part })),
      finishReason: finish.finishReason,
      usage: finish.usage,
      warnings: this.warnings,
      ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
      ...(this.response ? { response: this.response } : {}),
    } as LanguageModelV4GenerateResult;
  }
}

/**
 * The stream of a recorded step, as a provider would have sent it: each text and reasoning block as one
 * delta, then each discrete part (tool calls after their input), then the finish.
 */
export function streamOfRecordedStep(recorded: LanguageModelV4GenerateResult): ReadableStream<Part> {
  const parts: Part[] = [{ type: 'stream-start', warnings: recorded.warnings ?? [] }];
  if (recorded.response) parts.push({ type: 'response-metadata', ...(recorded.response as object) } as Part);
  recorded.content.forEach((part, i) => {
    const id = String(i);
    if (part.type === 'text' || part.type === 'reasoning') {
      const meta = part.providerMetadata ? { providerMetadata: part.providerMetadata } : {};
      parts.push(
        { type: `${part.type}-start`, id, ...meta } as Part,
        { type: `${part.type}-delta`, id, delta: part.text } as Part,
        { type: `${part.type}-end`, id } as Part,
      );
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      parts.push({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      parts.push({ type: 'tool-input-delta', id: part.toolCallId, delta: part.input });
      parts.push({ type: 'tool-input-end', id: part.toolCallId });
      parts.push(part);
    } else parts.push(part as Part);
  });
  parts.push({
    type: 'finish',
    finishReason: recorded.finishReason,
    usage: recorded.usage,
    ...(recorded.providerMetadata ? { providerMetadata: recorded.providerMetadata } : {}),
  });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/**
 * The live stream of a new step, journaled: `record` is called with the assembled step when its finish
 * arrives and must have made it durable when it resolves; the held tool calls and the finish follow.
 * A stream that ends or fails before its finish records nothing and lets no tool call through.
 */
export function recordingStepStream(args: {
  stream: ReadableStream<Part>;
  renamer: CallIdRenamer;
  record: (result: LanguageModelV4GenerateResult) => Promise<void>;
}): ReadableStream<Part> {
  const { renamer, record } = args;
  const assembly = new StepAssembly();
  const held: Part[] = [];
  return args.stream.pipeThrough(
    new TransformStream<Part, Part>({
      async transform(given, controller) {
        const part = renamed(given, renamer);
        assembly.add(part);
        if (part.type === 'tool-call') {
          held.push(part);
          return;
        }
        if (part.type !== 'finish') {
          controller.enqueue(part);
          return;
        }
        await record(assembly.result());
        for (const call of held) controller.enqueue(call);
        controller.enqueue(part);
      },
    }),
  );
}

function renamed(part: Part, renamer: CallIdRenamer): Part {
  switch (part.type) {
    case 'tool-input-start':
      return { ...part, id: renamer.inputStart(part.id) };
    case 'tool-input-delta':
    case 'tool-input-end':
      return { ...part, id: renamer.of(part.id) };
    case 'tool-call':
      return { ...part, toolCallId: renamer.call(part.toolCallId) };
    case 'tool-result':
      return { ...part, toolCallId: renamer.of(part.toolCallId) };
    default:
      return part;
  }
}
