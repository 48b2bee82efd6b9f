/**
 * The one place idempotency keys are built.
 *
 * A key names one piece of outside work, so it must be the same string on every attempt and every
 * resume of that work, and never random: the outside service deduplicates by it. It is derived from
 * the run and the call ('call'), or from the run, the tool and the arguments ('args': the same
 * arguments mean the same work, so a re-planned call under a new call id maps to the same key).
 * The parts are hashed, so whatever the runId contains, the key is short (49 characters) and made of
 * [A-Za-z0-9_-] only: safe in an HTTP header such as Idempotency-Key.
 *
 * Schemes: a run records the scheme its keys are made by (`keyScheme` in its start input; a run
 * recorded before schemes were recorded is scheme 1), and every key of that run, on every resume, is
 * made by it, whatever the default of the code that resumes it: a key also identifies the run's
 * recorded work, so a run whose keys changed scheme mid-way would no longer find its own starts and
 * would execute them again.
 * - 1 (`gnl1…`): 'call' from the run and the call id; 'args' from the run, the tool and the arguments.
 * - 2 (`gnl2…`): the same, and 'call' keys also name the tool, so two tools can never share a key.
 * - 3 (`gnl3…`, the default for new runs): scheme 2, and 'args' keys hash the arguments with every string
 *   in Unicode NFC (canonical-json.ts), so arguments a person cannot tell apart ("café" as U+00E9 or as
 *   e + U+0301) are the same work. Not a change to 1 or 2: a run recorded under them keeps its keys.
 * Changing a scheme's function changes every key it made: idempotency-key.test.ts pins each with fixed values.
 * A fork (fork-keys.ts) makes its new calls' keys here too: 'args' keys from its lineage's root run, and a
 * repeat of its lineage's side effect takes that effect's recorded key.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import { JournalDataError } from '../errors';
import { DEFAULT_KEY_SCHEME, type KeyScheme } from './key-scheme';

export { DEFAULT_KEY_SCHEME, KEY_SCHEMES, type KeyScheme, keySchemeOf } from './key-scheme';

export type IdempotencyScope =
  | { kind: 'call'; runId: string; toolCallId: string; toolName?: string }
  | { kind: 'args'; runId: string; toolName: string; input: unknown };

export function idempotencyKey(scope: IdempotencyScope, scheme: KeyScheme = DEFAULT_KEY_SCHEME): string {
  let parts: string[];
  if (scheme === 1) parts = scope.kind === 'call' ? ['call', scope.runId, scope.toolCallId] : ['args', scope.runId, scope.toolName, canonicalJson(scope.input)];
  else {
    if (scope.kind === 'call' && scope.toolName === undefined) throw new JournalDataError(`Key scheme ${scheme} names the tool in a call key: give toolName.`);
    const version = `v${scheme}`;
    parts =
      scope.kind === 'call'
        ? [version, 'call', scope.runId, scope.toolName as string, scope.toolCallId]
        : [version, 'args', scope.runId, scope.toolName, canonicalJson(scope.input, { nfc: scheme === 3 })];
  }
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `gnl${scheme}${scope.kind === 'call' ? 'c' : 'a'}_${digest}`;
}
