/**
 * The model side of the loop. recordingModel (recording-model.ts) is the middleware that answers a
 * model call from the journal or records it (a new step rides with the next append); request-hash.ts
 * hashes what a call asks, so a replay that asks differently is a replay-mismatch (schema-identity.ts:
 * what "the same tool schema" means); tool-call-ids.ts keeps call ids unique within a run; refused-step.ts
 * records an answer too big to keep; resolve-model.ts resolves a model id as generateText does.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { resolveModel } from './resolve-model';
export { recordingModel } from './recording-model';
export { RequestHasher, requestHashV1 } from './request-hash';
