'use client';

import { Input, Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import { chosenVariant, type FormProblem, type FormState, pathKey, type SchemaField, variantKey } from '@/lib/studio/forms/schema-fields';
import { cn } from '@/lib/utils';

/**
 * The fields of a tool's schema (lib/studio/forms/schema-fields.ts), controlled by the caller's state.
 * Problems (the form's own and the server's schema check) are shown beside their fields, all at once;
 * a problem of a path the form has no field for is listed on top. Labels and values are text.
 */
export function SchemaForm({
  field,
  state,
  onChange,
  problems,
  idPrefix,
  rootLabel,
}: {
  field: SchemaField;
  state: FormState;
  onChange: (next: FormState) => void;
  problems: readonly FormProblem[];
  idPrefix: string;
  /** The label of the value itself when it is one field (no schema, or not an object): the question asked. */
  rootLabel?: string;
}) {
  const set = (key: string, value: string | boolean) => onChange({ ...state, [key]: value });
  const known = new Set(pathsOf(field, state));
  const loose = problems.filter((p) => !known.has(p.path));
  return (
    <div className="space-y-2" data-slot="schema-form">
      {loose.length > 0 ? (
        <ul className="text-xs text-destructive" data-slot="form-problems">
          {loose.map((p) => (
            <li key={`${p.path}:${p.message}`}>
              <VisibleText text={p.path ? `${p.path}: ${p.message}` : p.message} />
            </li>
          ))}
        </ul>
      ) : null}
      <FieldView field={field} state={state} set={set} problems={problems} idPrefix={idPrefix} rootLabel={rootLabel ?? 'Value'} />
    </div>
  );
}

function FieldView(props: {
  field: SchemaField;
  state: FormState;
  set: (key: string, value: string | boolean) => void;
  problems: readonly FormProblem[];
  idPrefix: string;
  rootLabel: string;
}) {
  const { field, state, set, problems, idPrefix, rootLabel } = props;
  const key = pathKey(field.path);
  const id = `${idPrefix}-${key || 'value'}`;
  const mine = problems.filter((p) => p.path === key);
  const label = (
    <>
      <Label htmlFor={id}>
        <VisibleText text={field.path.length === 0 ? rootLabel : field.label} />
        {field.required || field.path.length === 0 ? '' : ' (optional)'}
      </Label>
      {field.description ? (
        <p className="text-xs text-muted-foreground" id={`${id}-about`}>
          <VisibleText text={field.description} />
        </p>
      ) : null}
    </>
  );
  const invalid = mine.length > 0;
  const text = typeof state[key] === 'string' ? (state[key] as string) : '';
  let control: React.ReactNode;
  switch (field.kind) {
    case 'object':
      return (
        <fieldset className={cn('space-y-2', field.path.length > 0 && 'rounded-md border p-2')}>
          {field.path.length > 0 ? (
            <legend className="px-1 text-xs font-medium">
              <VisibleText text={field.label} />
            </legend>
          ) : null}
          {field.fields.map((child) => (
            <FieldView key={pathKey(child.path)} {...props} field={child} />
          ))}
          <Problems problems={mine} />
        </fieldset>
      );
    case 'variant': {
      const chosen = chosenVariant(field, state);
      const variant = field.variants[chosen];
      return (
        <div className="space-y-2">
          <Label htmlFor={`${id}-variant`}>Which kind of {field.path.length === 0 ? 'value' : <VisibleText text={field.label} />}</Label>
          <select
            id={`${id}-variant`}
            className="h-9 w-full rounded-md border bg-background px-2 text-sm"
            value={String(chosen)}
            onChange={(e) => set(variantKey(field.path), e.target.value)}
          >
            {field.variants.map((v, i) => (
              <option key={v.label} value={String(i)}>
                {v.label}
              </option>
            ))}
          </select>
          {variant ? <FieldView {...props} field={variant.field} /> : null}
        </div>
      );
    }
    case 'const':
      return (
        <p className="text-xs text-muted-foreground">
          <VisibleText text={`${field.label}: ${JSON.stringify(field.value)}`} />
        </p>
      );
    case 'boolean':
      return (
        <div className="flex items-center gap-2">
          <input id={id} name={key} type="checkbox" checked={state[key] === true} onChange={(e) => set(key, e.target.checked)} />
          {label}
          <Problems problems={mine} />
        </div>
      );
    case 'enum':
      control = (
        <select
          id={id}
          name={key}
          aria-invalid={invalid}
          className="h-9 w-full rounded-md border bg-background px-2 text-sm"
          value={text}
          onChange={(e) => set(key, e.target.value)}
        >
          <option value="">{field.required ? 'Choose…' : '(none)'}</option>
          {field.options.map((option) => (
            <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      );
      break;
    case 'json':
      control = (
        <Textarea
          id={id}
          name={key}
          aria-invalid={invalid}
          rows={4}
          className="font-mono text-xs"
          placeholder="JSON"
          value={text}
          onChange={(e) => set(key, e.target.value)}
        />
      );
      break;
    default:
      control = (
        <Input
          id={id}
          name={key}
          aria-invalid={invalid}
          inputMode={field.kind === 'number' ? 'decimal' : undefined}
          value={text}
          onChange={(e) => set(key, e.target.value)}
        />
      );
  }
  return (
    <div className="space-y-1">
      {label}
      {control}
      <Problems problems={mine} />
    </div>
  );
}

function Problems({ problems }: { problems: readonly FormProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <ul className="text-xs text-destructive" data-slot="field-problems">
      {problems.map((p) => (
        <li key={p.message}>
          <VisibleText text={p.message} />
        </li>
      ))}
    </ul>
  );
}

/** Every path the form shows a field for (the chosen variants only). */
function pathsOf(field: SchemaField, state: FormState): string[] {
  if (field.kind === 'object') return [pathKey(field.path), ...field.fields.flatMap((f) => pathsOf(f, state))];
  if (field.kind === 'variant') {
    const chosen = field.variants[chosenVariant(field, state)];
    return chosen ? pathsOf(chosen.field, state) : [];
  }
  return [pathKey(field.path)];
}
