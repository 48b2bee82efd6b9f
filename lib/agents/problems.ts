import type { z } from 'zod';

/** A zod error as readable lines: `path: message`, one per issue. */
export function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message));
}
