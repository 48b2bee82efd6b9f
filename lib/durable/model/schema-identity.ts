/**
 * What "the same tool" means across invocations: the same name and the same JSON Schema offered to the
 * model, without `default` values. A zod default can be computed (`.default(() => new Date()…)`), and
 * its value lands in the JSON Schema anew on every call; a default does not change which arguments the
 * model may send, so it is left out of every hash that compares a run with its record (the start
 * input's tool schemas, a model call's request hash). Refinements leave no trace in the JSON Schema and
 * transforms show their input side, so neither makes a tool look changed. Property names are data, not
 * keywords: a property called `default` stays.
 */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const DATA = new Set(['enum', 'const', 'examples']);

export function withoutDefaults(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDefaults);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'default') continue;
    if (DATA.has(keyword)) out[keyword] = value;
    else if (SCHEMA_MAPS.has(keyword) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutDefaults(sub)]));
    } else out[keyword] = withoutDefaults(value);
  }
  return out;
}
