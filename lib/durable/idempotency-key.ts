/**
 * The one place idempotency keys are built.
 *
 * A key names one piece of outside work, so it must be the same string on every attempt and every
 * resume of that work, and never random: the outside service deduplicates by it. It is derived from
 * the run and the call ('call'), or from the run, the tool and the arguments ('args': the same
 * arguments mean the same work, so a re-planned call under a new call id maps to the same key).
 * The parts are hashed, so whatever the runId contains, the key is short (49 characters) and made of
 * [A-Za-z0-9_-] only: safe in an HTTP header such as Idempotency-Key. The version prefix lets a
 * future scheme coexist with recorded keys; changing this function changes every key, which
 * idempotency-key.test.ts guards with fixed values.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';

export type IdempotencyScope = { kind: 'call'; runId: string; toolCallId: string } | { kind: 'args'; runId: string; toolName: string; input: unknown };

export function idempotencyKey(scope: IdempotencyScope): string {
  const parts = scope.kind === 'call' ? ['call', scope.runId, scope.toolCallId] : ['args', scope.runId, scope.toolName, canonicalJson(scope.input)];
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `gnl1${scope.kind === 'call' ? 'c' : 'a'}_${digest}`;
}
