/**
 * Records and replays model steps. A model middleware: a step already in the journal is returned
 * from it (the model is not called), a new step is journaled before the loop sees it. The n-th model
 * call of an invocation is step n of the run, because every invocation replays from the first step.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { canonicalJson } from './canonical-json';
import { JournalDataError } from './errors';
import { encodeJson } from './json-codec';
import type { RunSession } from './run-session';

export function recordingModel(model: LanguageModelV4, session: RunSession): LanguageModelV4 {
  return wrapLanguageModel({ model, middleware: recordingMiddleware(session) });
}

function recordingMiddleware(session: RunSession): LanguageModelV4Middleware {
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, model, params }) => {
      session.throwIfFatal();
      const step = session.nextStep++;
      const requestHash = hashRequest(params);
      const recorded = session.state.modelSteps[step];
      if (recorded !== undefined) {
        session.replayedSteps.add(step);
        const recordedHash = session.state.modelRequestHashes[step];
        if (recordedHash !== undefined && recordedHash !== requestHash) {
          await session.replayMismatch(
            { type: 'replay-mismatch', kind: 'model-call', step, recorded: recordedHash, given: requestHash },
            `model call ${step} input`,
          );
        }
        return recorded as LanguageModelV4GenerateResult;
      }
      if (session.state.status === 'completed') {
        throw new JournalDataError(
          `Run "${session.runId}" is completed with ${session.state.modelSteps.length} model steps; this call asks for step ${step + 1}. Start a new run instead.`,
        );
      }
      const startedAt = performance.now();
      const result = await doGenerate();
      const latencyMs = Math.round((performance.now() - startedAt) * 10) / 10;
      await session.append({
        type: 'model-step',
        step,
        provider: model.provider,
        modelId: model.modelId,
        latencyMs,
        requestHash,
        result: journaledResult(result),
      });
      return result;
    },
    wrapStream: async () => {
      throw new JournalDataError('runDurable journals generateText steps; streaming model calls are not supported.');
    },
  };
}

/**
 * The model call's input, hashed: the prompt, the tools offered, the settings. Not the abort signal or
 * headers (transport), which do not change what is asked.
 */
function hashRequest(params: LanguageModelV4CallOptions): string {
  const { abortSignal: _signal, headers: _headers, ...asked } = params;
  return createHash('sha256')
    .update(canonicalJson(encodeJson(asked)))
    .digest('base64url');
}

/** What the loop needs back on replay; request and response bodies stay out of the journal. */
function journaledResult(result: LanguageModelV4GenerateResult): LanguageModelV4GenerateResult {
  const { request: _request, response, ...rest } = result;
  if (!response) return rest;
  const { body: _body, headers: _headers, ...responseMeta } = response as typeof response & { body?: unknown; headers?: unknown };
  return { ...rest, response: responseMeta };
}
