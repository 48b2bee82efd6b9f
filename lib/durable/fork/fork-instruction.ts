/**
 * A fork's instruction (`forkOf.instruction`, forkRun's `edit: { instruction }`): a user message the
 * model reads at the fork's first own step, after the shared history. Given through prepareStep on every
 * invocation, the same way each time, so a replay asks what was asked; the SDK carries a step's
 * messages forward, so later steps see it too.
 */
import type { ForkOrigin } from './fork-plan';

export function withForkInstruction<P extends { messages?: unknown[] } | undefined>(
  forkOf: ForkOrigin | undefined,
  options: { stepNumber: number; messages?: unknown[] },
  prepared: P,
): P | (NonNullable<P> & { messages: unknown[] }) {
  if (forkOf?.instruction === undefined || options.stepNumber !== forkOf.atStep - 1) return prepared;
  const messages = prepared?.messages ?? options.messages ?? [];
  return { ...(prepared ?? {}), messages: [...messages, { role: 'user', content: forkOf.instruction }] } as NonNullable<P> & { messages: unknown[] };
}
