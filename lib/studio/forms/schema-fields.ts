/**
 * A form from a tool's JSON Schema (its input schema to edit a call's arguments, its output schema to
 * give a result): strings, numbers, booleans, enums and nested objects become fields; a union of objects
 * becomes a choice of variant; anything else (arrays, tuples, open maps, nullables) a JSON field. The
 * form's state is flat text by field path, so it can be prefilled from a value and read back into one,
 * with every problem of the reading named at once (a number that is not one, JSON that does not parse, a
 * required field left empty). The tool's own schema stays the judge: the server checks the value with it.
 * Browser-safe: no server imports.
 */

type JsonSchema = Record<string, unknown>;

interface FieldBase {
  /** Keys from the root value; [] is the root itself. */
  path: string[];
  label: string;
  required: boolean;
  description?: string;
}

export type SchemaField = FieldBase &
  (
    | { kind: 'string' }
    | { kind: 'number'; integer: boolean }
    | { kind: 'boolean' }
    | { kind: 'enum'; options: (string | number | boolean)[] }
    | { kind: 'const'; value: unknown }
    | { kind: 'object'; fields: SchemaField[] }
    /** One of several object shapes at the same path, chosen by the operator. */
    | { kind: 'variant'; variants: { label: string; field: SchemaField & { kind: 'object' } }[] }
    | { kind: 'json' }
  );

/** The form's state: text (or a checkbox) per field path; a variant's choice under `<path>#variant`. */
export type FormState = Record<string, string | boolean>;

export interface FormProblem {
  /** Dotted path of the field ('' for the whole value), as the server's schema check names it. */
  path: string;
  message: string;
}

export const pathKey = (path: readonly string[]): string => path.join('.');
const variantKey = (path: readonly string[]): string => `${pathKey(path)}#variant`;

/** The root field for a JSON Schema (undefined or empty: one JSON field). */
export function schemaFields(schema: unknown): SchemaField {
  return fieldOf(isObject(schema) ? schema : {}, [], true);
}

function fieldOf(schema: JsonSchema, path: string[], required: boolean): SchemaField {
  const base: FieldBase = {
    path,
    label: path.at(-1) ?? 'value',
    required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  };
  if ('const' in schema) return { ...base, kind: 'const', value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    return { ...base, kind: 'enum', options: schema.enum as (string | number | boolean)[] };
  }
  const union = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(union) && union.length > 0 && union.every((s) => isObject(s) && s.type === 'object' && isObject(s.properties))) {
    const variants = union.map((s: JsonSchema, i) => {
      const field = fieldOf(s, path, true) as SchemaField & { kind: 'object' };
      return { label: variantLabel(field, i), field };
    });
    return { ...base, kind: 'variant', variants };
  }
  switch (schema.type) {
    case 'string':
      return { ...base, kind: 'string' };
    case 'number':
    case 'integer':
      return { ...base, kind: 'number', integer: schema.type === 'integer' };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'object': {
      if (!isObject(schema.properties)) return { ...base, kind: 'json' };
      const needed = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      const fields = Object.entries(schema.properties).map(([key, sub]) => fieldOf(isObject(sub) ? sub : {}, [...path, key], needed.has(key)));
      return { ...base, kind: 'object', fields };
    }
    default:
      return { ...base, kind: 'json' };
  }
}

/** "ok: true" for a variant told apart by a constant; else "variant 2". */
function variantLabel(field: SchemaField & { kind: 'object' }, index: number): string {
  const consts = field.fields.filter((f) => f.kind === 'const').map((f) => `${f.label}: ${JSON.stringify((f as { value: unknown }).value)}`);
  return consts.length > 0 ? consts.join(', ') : `variant ${index + 1}`;
}

/** The state that shows `value` (the original arguments, the outside system's record), field by field. */
export function initialState(field: SchemaField, value: unknown, state: FormState = {}): FormState {
  const key = pathKey(field.path);
  switch (field.kind) {
    case 'string':
      state[key] = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
      break;
    case 'number':
      state[key] = typeof value === 'number' ? String(value) : '';
      break;
    case 'boolean':
      state[key] = value === true;
      break;
    case 'enum':
      state[key] = value === undefined ? '' : JSON.stringify(value);
      break;
    case 'const':
      break;
    case 'object':
      for (const child of field.fields) initialState(child, isObject(value) ? value[child.path.at(-1) as string] : undefined, state);
      break;
    case 'variant': {
      const chosen = Math.max(
        0,
        field.variants.findIndex((v) => v.field.fields.every((f) => f.kind !== 'const' || (isObject(value) && sameJson(value[f.label], f.value)))),
      );
      state[variantKey(field.path)] = String(chosen);
      for (const variant of field.variants) initialState(variant.field, value, state);
      break;
    }
    case 'json':
      state[key] = value === undefined ? '' : JSON.stringify(value, null, 2);
      break;
  }
  return state;
}

/** Which variant the state has chosen at a variant field. */
export function chosenVariant(field: SchemaField & { kind: 'variant' }, state: FormState): number {
  const index = Number(state[variantKey(field.path)] ?? 0);
  return Number.isInteger(index) && index >= 0 && index < field.variants.length ? index : 0;
}

export { variantKey };

const ABSENT = Symbol('absent');

function read(field: SchemaField, state: FormState, problems: FormProblem[]): unknown {
  const key = pathKey(field.path);
  const text = typeof state[key] === 'string' ? (state[key] as string) : '';
  const missing = () => {
    if (field.required) problems.push({ path: key, message: 'Required' });
    return ABSENT;
  };
  switch (field.kind) {
    case 'string':
      return text === '' && !field.required ? ABSENT : text;
    case 'number': {
      if (text.trim() === '') return missing();
      const number = Number(text);
      if (!Number.isFinite(number)) problems.push({ path: key, message: `"${text}" is not a number` });
      else if (field.integer && !Number.isInteger(number)) problems.push({ path: key, message: `"${text}" is not a whole number` });
      return number;
    }
    case 'boolean':
      return state[key] === true;
    case 'enum':
      if (text === '') return missing();
      return JSON.parse(text) as unknown;
    case 'const':
      return field.value;
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const child of field.fields) {
        const value = read(child, state, problems);
        if (value !== ABSENT) out[child.path.at(-1) as string] = value;
      }
      return out;
    }
    case 'variant':
      return read(field.variants[chosenVariant(field, state)]?.field as SchemaField, state, problems);
    case 'json':
      if (text.trim() === '') return missing();
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        problems.push({ path: key, message: `Not valid JSON: ${(error as Error).message}` });
        return ABSENT;
      }
  }
}

/** Reads the state back into a value (an optional root left empty: undefined); every field that cannot be read is a problem, all named at once. */
export function formValue(field: SchemaField, state: FormState): { value: unknown; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  const value = read(field, state, problems);
  return { value: value === ABSENT ? undefined : value, problems };
}

function isObject(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
