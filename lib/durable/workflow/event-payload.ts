import type { z } from 'zod';
import { plainIssueMessage } from '../tools/plain-issues';

/** A sent event's payload parsed by the schema the workflow declares for it (none declared: any value the journal holds). */
export function parseEventPayload(
  events: Readonly<Record<string, z.ZodType>>,
  event: string,
  payload: unknown,
): { ok: true; payload: unknown } | { ok: false; problems: string[] } {
  const schema = events[event];
  if (!schema) return { ok: true, payload };
  const parsed = schema.safeParse(payload);
  if (parsed.success) return { ok: true, payload: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => `payload${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${plainIssueMessage(issue.message)}`),
  };
}
