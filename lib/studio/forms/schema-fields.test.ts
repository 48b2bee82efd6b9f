import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueRefundInput, issueRefundOutput } from '@/lib/demo/support-tools';
import { chosenVariant, formValue, initialState, pathKey, schemaFields, variantKey } from './schema-fields';

const json = (schema: z.ZodType) => z.toJSONSchema(schema);

describe('schema fields', () => {
  it('makes fields from an input schema, prefilled with the arguments, and reads the same arguments back', () => {
    const root = schemaFields(json(issueRefundInput));
    expect(root.kind).toBe('object');
    if (root.kind !== 'object') return;
    expect(root.fields.map((f) => [f.label, f.kind, f.required])).toEqual([
      ['customerId', 'string', true],
      ['orderId', 'string', true],
      ['amount', 'number', true],
      ['ticketId', 'string', false],
    ]);
    const original = { customerId: 'c_42', orderId: 'o_17', amount: 40 };
    const state = initialState(root, original);
    expect(formValue(root, state)).toEqual({ value: original, problems: [] });
    expect(formValue(root, { ...state, amount: '25.5' }).value).toEqual({ ...original, amount: 25.5 });
  });

  it('names every problem at once', () => {
    const schema = json(z.object({ n: z.number().int(), m: z.number(), tags: z.array(z.string()), name: z.string(), k: z.enum(['a', 'b']) }));
    const root = schemaFields(schema);
    const { problems } = formValue(root, { n: '1.5', m: 'ten', tags: '[oops', name: '', k: '' });
    expect(problems.map((p) => p.path)).toEqual(['n', 'm', 'tags', 'k']);
    expect(problems[0]?.message).toContain('whole number');
    expect(problems[2]?.message).toContain('Not valid JSON');
  });

  it('offers a union of objects as variants, chosen from the prefilled value, with nested objects, booleans and enums', () => {
    const root = schemaFields(json(issueRefundOutput));
    expect(root.kind).toBe('variant');
    if (root.kind !== 'variant') return;
    expect(root.variants.map((v) => v.label)).toEqual(['ok: true', 'ok: false']);
    const refused = { ok: false, refused: 'more than the order total' };
    const state = initialState(root, refused);
    expect(chosenVariant(root, state)).toBe(1);
    expect(formValue(root, state).value).toEqual(refused);
    const other = schemaFields(json(z.object({ flag: z.boolean(), level: z.enum(['low', 'high']), inner: z.object({ x: z.number() }) })));
    const filled = initialState(other, { flag: true, level: 'high', inner: { x: 3 } });
    expect(filled[pathKey(['inner', 'x'])]).toBe('3');
    expect(formValue(other, { ...filled, flag: false }).value).toEqual({ flag: false, level: 'high', inner: { x: 3 } });
    expect(variantKey(['a'])).toBe('a#variant');
  });

  it('falls back to one JSON field without a schema', () => {
    const root = schemaFields(undefined);
    expect(root.kind).toBe('json');
    expect(formValue(root, initialState(root, { any: [1, 2] })).value).toEqual({ any: [1, 2] });
  });
});
