/**
 * An agent's version fingerprint: what a run depends on to be replayed correctly. Two definitions
 * with the same tool names and input schemas, the same model (provider and id) and the same system
 * prompt have the same version; any change there gives a new one. Tool descriptions, temperature and
 * the like are not part of it: they change what the model says next, not how a recorded run reads.
 *
 * Each tool's schema hash is the one the journal records in a run's start input (`toolSchemas`):
 * SHA-256 of the canonical JSON Schema, base64url. So a recorded run can be compared with an agent
 * tool by tool without running it.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { asSchema, type ToolSet } from 'ai';
import { canonicalJson } from '@/lib/durable';

export interface AgentFingerprint {
  provider: string;
  modelId: string;
  /** The system prompt, or null when the agent has none. */
  system: string | null;
  /** Tool name → hash of its input JSON Schema, names sorted. */
  tools: Record<string, string>;
}

export function agentFingerprint(args: { model: LanguageModelV4; system: string | undefined; tools: ToolSet }): AgentFingerprint {
  const tools: Record<string, string> = {};
  for (const name of Object.keys(args.tools).sort()) tools[name] = toolSchemaHash(name, args.tools[name]?.inputSchema);
  return { provider: args.model.provider, modelId: args.model.modelId, system: args.system ?? null, tools };
}

/** The version string: 16 hex characters of SHA-256 over the canonical fingerprint. */
export function versionOf(fingerprint: AgentFingerprint): string {
  return sha256(canonicalJson(fingerprint)).toString('hex').slice(0, 16);
}

function toolSchemaHash(name: string, schema: unknown): string {
  const jsonSchema = asSchema(schema as Parameters<typeof asSchema>[0]).jsonSchema;
  if (typeof (jsonSchema as PromiseLike<unknown>).then === 'function') {
    throw new TypeError(
      `Tool "${name}" has an input schema whose JSON Schema resolves asynchronously; an agent's version needs it synchronously (zod schemas are).`,
    );
  }
  return sha256(canonicalJson(jsonSchema)).toString('base64url');
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
