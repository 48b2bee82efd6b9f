/**
 * The model call's input, hashed: recorded with each model step, compared when the step is replayed
 * (a replay that asks differently is journaled as `replay-mismatch`, fatal with strictReplay).
 *
 * Version 2, a running hash (recorded as "2:<digest>"): a step's prompt is the previous step's prompt
 * plus what that step added (its answer and tool results), so each message is hashed once, when it
 * first appears, into a chain; a step's hash is the chain over its prompt, plus its system messages
 * and its settings and tools, hashed whole at every step (where a changed input usually is: a system
 * prompt with today's date, a tool's schema). A prompt that is not an extension of the previous one (a
 * prepareStep that trims or rewrites history) is noticed by its length and hashed again from the start.
 * What version 2 does not see: an earlier non-system message rewritten in place with the length kept.
 * The replay is linear in the recorded steps instead of quadratic (docs/benchmarks.md, figure 2).
 *
 * Version 1 (no prefix, runs recorded before version 2): the whole call at every step. Still computed
 * for a step recorded with it, so those runs compare like with like; rows are never rewritten.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { canonicalJson } from '../identity/canonical-json';
import { encodeJson } from '../journal/json-codec';
import { withoutDefaults } from './schema-identity';

const V2 = '2:';

/** Hashes the model calls of one invocation; one per session, so a model prepareStep swaps in shares it. */
export class RequestHasher {
  /** chain[i]: the digest over the non-system messages among the prompt's first i messages. */
  private readonly chain: string[] = [digest('gnl-request-chain')];
  /** The digest of the last message the chain covers, to notice a prompt that is not an extension. */
  private last: string | undefined;
  /** The system messages among the messages the chain covers, with their places. */
  private readonly systems: { at: number; message: LanguageModelV4Prompt[number] }[] = [];
  /** Whether the last call hashed was version 2: the chain covers its whole prompt, and the next may be given as its tail. */
  extendable = false;

  /**
   * The version 2 hash of this call's input. `recorded`: the hash its record holds, when the call is a
   * replay: a record made before `includeRawChunks` was left out is compared as it was made (digestOf).
   */
  hash(params: LanguageModelV4CallOptions, recorded?: string): string {
    const { prompt, abortSignal: _signal, headers: _headers, ...settings } = params;
    const covered = this.chain.length - 1;
    // Shorter, or its last covered message changed (a sliding window): not an extension, from the start.
    if (covered > prompt.length || (covered > 0 && messageDigest(prompt[covered - 1]) !== this.last)) this.restart();
    const from = this.chain.length - 1;
    this.extend(prompt.slice(from), from);
    const system = prompt.filter((message) => message.role === 'system');
    return this.digestOf(settings, system, recorded);
  }

  /**
   * The version 2 hash of a call whose prompt is given as its tail (prompt-tail.ts): its leading system
   * messages (the call's instructions, in the same places as in the prompts hashed before), then only the
   * messages that extend the last prompt hashed. The same hash as the whole prompt's: the chain goes on
   * from what it covers, and the system messages are the given ones plus those the chain saw after them.
   */
  hashTail(params: LanguageModelV4CallOptions, recorded?: string): string {
    const { prompt, abortSignal: _signal, headers: _headers, ...settings } = params;
    if (!this.extendable) throw new Error('RequestHasher.hashTail: the last call hashed was not version 2; its prompt must be given whole.');
    let instructions = 0;
    while (prompt[instructions]?.role === 'system') instructions++;
    const covered = this.chain.length - 1;
    if (covered < instructions) throw new Error('RequestHasher.hashTail: the tail has more instructions than the prompts before it.');
    const system = [...prompt.slice(0, instructions), ...this.systems.filter((s) => s.at >= instructions).map((s) => s.message)];
    this.extend(prompt.slice(instructions), covered);
    return this.digestOf(settings, system, recorded);
  }

  /** Whether the next call may be given as its tail (hashTail): the chain covers the last prompt, and the call's record, if any, is version 2. */
  takesTailFor(recorded: string | undefined): boolean {
    return this.extendable && (recorded === undefined || recorded.startsWith(V2));
  }

  /** This call's hash in the version `recorded` was made with, to compare like with like. */
  hashLike(recorded: string, params: LanguageModelV4CallOptions): string {
    if (recorded.startsWith(V2)) return this.hash(params, recorded);
    this.extendable = false;
    return requestHashV1(params);
  }

  /** The chain carried over `messages`, the first of them at place `from` of the prompt. */
  private extend(messages: LanguageModelV4Prompt, from: number): void {
    for (const [j, message] of messages.entries()) {
      const i = from + j;
      const previous = this.chain[i] as string;
      this.last = messageDigest(message);
      if (message.role === 'system') this.systems.push({ at: i, message });
      this.chain.push(message.role === 'system' ? previous : digest(previous + this.last));
    }
    this.extendable = true;
  }

  private restart(): void {
    this.chain.length = 1;
    this.systems.length = 0;
  }

  /**
   * The hash over the chain, the system messages and the settings. `includeRawChunks` (streamText sends
   * it, generateText does not) asks the provider nothing different: left out, so a run recorded by
   * runDurable replays under streamDurable and the other way round without a mismatch. Hashes recorded
   * before it was left out hold it (`false` unless the caller set it): such a record is compared with
   * the hash made that way when that is the one it holds.
   */
  private digestOf(settings: Omit<LanguageModelV4CallOptions, 'prompt'>, system: LanguageModelV4Prompt, recorded?: string): string {
    const { includeRawChunks, ...asked } = settings as typeof settings & { includeRawChunks?: boolean };
    const of = (hashed: object) =>
      V2 + digest(`${this.chain.at(-1)}.${digest(canonicalJson(encodeJson({ settings: withSchemasWithoutDefaults(hashed), system })))}`);
    const hash = of(asked);
    if (recorded === undefined || recorded === hash) return hash;
    const before = of({ ...asked, includeRawChunks: includeRawChunks ?? false });
    return before === recorded ? before : hash;
  }
}

/** Version 1: the whole call (prompt, tools without their schemas' defaults, settings), at every step. */
export function requestHashV1(params: LanguageModelV4CallOptions): string {
  const { abortSignal: _signal, headers: _headers, ...rest } = params;
  return digest(canonicalJson(encodeJson(withSchemasWithoutDefaults(rest))));
}

/** The tools offered, their schemas without defaults (schema-identity.ts): a default is no change in what is asked. */
function withSchemasWithoutDefaults<T extends { tools?: LanguageModelV4CallOptions['tools'] }>(settings: T): T {
  if (!settings.tools) return settings;
  return { ...settings, tools: settings.tools.map((t) => ('inputSchema' in t ? { ...t, inputSchema: withoutDefaults(t.inputSchema) } : t)) };
}

function messageDigest(message: unknown): string {
  return digest(canonicalJson(encodeJson(message)));
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
