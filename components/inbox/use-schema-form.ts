'use client';

import { useMemo, useState } from 'react';
import { type FormProblem, type FormState, formValue, initialState, schemaFields } from '@/lib/studio/forms/schema-fields';

/**
 * A schema form's state: fields from the JSON Schema, prefilled from `initial`, read back with the
 * form's own problems; `serverProblems` holds what the tool's schema refused on the server (all at once).
 */
export function useSchemaForm(schema: unknown, initial: unknown) {
  const field = useMemo(() => schemaFields(schema), [schema]);
  const [state, setState] = useState<FormState>(() => initialState(field, initial));
  const [serverProblems, setServerProblems] = useState<FormProblem[]>([]);
  const read = () => formValue(field, state);
  const reset = (value: unknown) => {
    setState(initialState(field, value));
    setServerProblems([]);
  };
  return { field, state, setState, read, reset, serverProblems, setServerProblems };
}
