/**
 * Run identity: what a run was started with, and how a later call compares. A runId names one job;
 * the same runId with a different prompt, system, model or tools is a different job, refused with
 * RunDivergedError instead of mixing the two.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { asSchema, type ToolSet } from 'ai';
import { canonicalJson } from '../identity/canonical-json';
import type { Divergence } from '../errors';
import type { RunInput } from '../journal/events';
import { encodeJson } from '../journal/json-codec';
import { withoutDefaults } from '../model/schema-identity';

export interface RunInputSource {
  agent?: string;
  agentVersion?: string;
  conversationId?: string;
  subject?: string;
  instructions?: unknown;
  prompt?: unknown;
  messages?: unknown;
  system?: unknown;
  tools?: ToolSet;
}

export async function buildRunInput(args: {
  source: RunInputSource;
  model: LanguageModelV4;
  defaultStepLimit?: number;
  /** Recorded only when a new run starts (a resume keeps the recorded one, never compared). */
  keyScheme?: number;
}): Promise<RunInput> {
  const { source, model, defaultStepLimit, keyScheme } = args;
  const tools = source.tools ?? {};
  const toolSchemas: Record<string, string> = {};
  for (const name of Object.keys(tools).sort()) toolSchemas[name] = await schemaHash(tools[name]?.inputSchema);
  return {
    ...(source.agent !== undefined ? { agent: source.agent } : {}),
    ...(source.agentVersion !== undefined ? { agentVersion: source.agentVersion } : {}),
    ...(source.conversationId !== undefined ? { conversationId: source.conversationId } : {}),
    ...(source.subject !== undefined ? { subject: source.subject } : {}),
    prompt: source.prompt,
    messages: source.messages,
    system: source.system,
    ...(source.instructions !== undefined ? { instructions: source.instructions } : {}),
    modelId: model.modelId,
    provider: model.provider,
    toolNames: Object.keys(tools).sort(),
    toolSchemas,
    ...(defaultStepLimit !== undefined ? { defaultStepLimit } : {}),
    ...(keyScheme !== undefined ? { keyScheme } : {}),
  };
}

/** What differs between the recorded start input and this call's. Fields an old record lacks are not compared. */
export function runInputDifferences(recorded: RunInput, given: RunInput): Divergence[] {
  const differences: Divergence[] = [];
  const compare = (field: string, a: unknown, b: unknown) => {
    if (same(a, b)) return;
    differences.push({ field, recorded: a, given: b });
  };
  compare('agent', recorded.agent, given.agent);
  compare('workflow', recorded.workflow?.name, given.workflow?.name);
  compare('workflow input', recorded.workflow?.input, given.workflow?.input);
  compare('conversationId', recorded.conversationId, given.conversationId);
  // Whose data the run holds (erasure finds runs by it): a call that names a subject names the recorded one (a
  // resume need not repeat it; a retried start with another, or one the run was not given, is refused).
  if (given.subject !== undefined) compare('subject', recorded.subject, given.subject);
  // Memory's resource and thread; the messages it was given are the record's (run-memory.ts), never compared.
  compare('memory resource', recorded.memory?.resource, given.memory?.resource);
  compare('memory thread', recorded.memory?.thread, given.memory?.thread);
  compare('prompt', recorded.prompt, given.prompt);
  compare('messages', recorded.messages, given.messages);
  compare('system', recorded.system, given.system);
  compare('instructions', recorded.instructions, given.instructions);
  compare('modelId', recorded.modelId, given.modelId);
  compare('provider', recorded.provider, given.provider);
  compare('toolNames', recorded.toolNames, given.toolNames);
  if (recorded.toolSchemas && given.toolSchemas) {
    for (const name of given.toolNames) {
      const before = recorded.toolSchemas[name];
      if (before !== undefined) compare(`tool schema: ${name}`, before, given.toolSchemas[name]);
    }
  }
  return differences;
}

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(encodeJson(a)) === canonicalJson(encodeJson(b));
}

/**
 * Per schema object: every call of runDurable builds its start input, and converting a zod schema to JSON
 * Schema was a tenth of a completed run's answer. Schemas are values (zod's are immutable; a JSON Schema
 * given through `jsonSchema()` is not expected to change in place), so a schema object hashes once.
 */
const schemaHashes = new WeakMap<object, Promise<string>>();

function schemaHash(schema: unknown): Promise<string> {
  if (schema === null || typeof schema !== 'object') return hashOfSchema(schema);
  let hash = schemaHashes.get(schema);
  if (!hash) {
    hash = hashOfSchema(schema);
    schemaHashes.set(schema, hash);
    // A schema that could not be converted is asked again next time (and fails there as it failed here).
    hash.catch(() => schemaHashes.delete(schema));
  }
  return hash;
}

async function hashOfSchema(schema: unknown): Promise<string> {
  const jsonSchema = await asSchema(schema as Parameters<typeof asSchema>[0]).jsonSchema;
  return createHash('sha256')
    .update(canonicalJson(withoutDefaults(jsonSchema)))
    .digest('base64url');
}
