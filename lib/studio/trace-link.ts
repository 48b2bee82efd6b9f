/**
 * Where a run's traces live (GNL_TRACE_URL): a URL template with `{traceId}` in it, e.g.
 * `https://jaeger.example.com/trace/{traceId}`. The run page links each invocation's recorded span
 * (run-start's and run-resume's `trace`, lib/durable/telemetry/tracing.ts) there. Checked when read: a template that
 * is not an http(s) URL with `{traceId}` is refused with a message naming the variable, never half used.
 */
import { z } from 'zod';

const PLACEHOLDER = '{traceId}';

const templateSchema = z
  .string()
  .trim()
  .refine((value) => value.includes(PLACEHOLDER), { message: `must contain ${PLACEHOLDER}` })
  .refine(
    (value) => {
      try {
        return ['http:', 'https:'].includes(new URL(value.replaceAll(PLACEHOLDER, '0'.repeat(32))).protocol);
      } catch {
        return false;
      }
    },
    { message: 'must be an http(s) URL' },
  );

export class TraceUrlError extends Error {
  override name = 'TraceUrlError';
}

/** The template from the environment, or undefined when GNL_TRACE_URL is unset or empty. */
export function traceUrlTemplate(env: Record<string, string | undefined> = process.env): string | undefined {
  const raw = env.GNL_TRACE_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = templateSchema.safeParse(raw);
  if (!parsed.success) {
    throw new TraceUrlError(
      `GNL_TRACE_URL ${parsed.error.issues.map((i) => i.message).join(' and ')} (e.g. https://jaeger.example.com/trace/${PLACEHOLDER}); got ${JSON.stringify(raw)}`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

/** The link to one trace: the template with the trace id (32 hex digits, as the journal's schema holds it) put in. */
export function traceHref(template: string, traceId: string): string | undefined {
  if (!/^[0-9a-f]{32}$/.test(traceId)) return undefined;
  return template.replaceAll(PLACEHOLDER, traceId);
}
