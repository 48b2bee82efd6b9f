import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findPrice } from './price-table';
import { loadPriceTable, PRICES_FILE_ENV, PriceFileError, pagePriceTable } from './price-file';
import builtIn from './prices.json';

const dir = mkdtempSync(path.join(tmpdir(), 'gnl-prices-'));
function file(name: string, content: unknown): string {
  const at = path.join(dir, name);
  writeFileSync(at, typeof content === 'string' ? content : JSON.stringify(content));
  return at;
}
function failure(env: Record<string, string>): PriceFileError {
  try {
    loadPriceTable(env);
  } catch (error) {
    if (PriceFileError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('loadPriceTable did not fail');
}

describe('the built-in price table', () => {
  it('is dated, and prices the well-known models but not the scripted demo model', () => {
    const table = loadPriceTable({});
    expect(table.files).toEqual([{ from: 'built-in', takenOn: builtIn.takenOn }]);
    expect(findPrice(table, 'openai.responses', 'gpt-4o-mini')).toEqual({
      input: 0.15,
      cacheRead: 0.075,
      output: 0.6,
      takenOn: '2025-06-01',
      from: 'built-in',
    });
    expect(findPrice(table, 'anthropic.messages', 'claude-sonnet-4-20250514')).toMatchObject({ input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 });
    for (const id of ['gpt-4o', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini']) expect(findPrice(table, 'openai.chat', id), id).toBeDefined();
    expect(findPrice(table, 'anthropic.messages', 'claude-3-5-haiku-20241022')).toBeDefined();
    expect(findPrice(table, 'gnl-demo', 'scripted-support-v1')).toBeUndefined();
  });
});

describe('GNL_PRICES_FILE', () => {
  it('merges over the built-in table model by model, each price keeping the day it was taken; null takes a price away', () => {
    const override = file('override.json', {
      takenOn: '2026-11-30',
      models: { openai: { 'gpt-4o-mini': { input: 0.1, output: 0.5 }, 'gpt-4o': null }, 'gnl-demo': { 'scripted-support-v1': { input: 0, output: 0 } } },
    });
    const table = loadPriceTable({ [PRICES_FILE_ENV]: override });
    expect(table.files).toEqual([
      { from: 'built-in', takenOn: '2025-06-01' },
      { from: override, takenOn: '2026-11-30' },
    ]);
    expect(findPrice(table, 'openai.chat', 'gpt-4o-mini')).toEqual({ input: 0.1, output: 0.5, takenOn: '2026-11-30', from: override });
    expect(findPrice(table, 'openai.chat', 'gpt-4o')).toBeUndefined();
    expect(findPrice(table, 'openai.chat', 'gpt-4.1')).toMatchObject({ takenOn: '2025-06-01', from: 'built-in' });
    expect(findPrice(table, 'gnl-demo', 'scripted-support-v1')).toMatchObject({ input: 0, output: 0 });
  });

  it('refuses a bad entry, naming the file and the entry, with the zod error as cause', () => {
    const bad = file('negative.json', { takenOn: '2026-11-30', models: { openai: { 'gpt-4o': { input: -1, output: 10 } } } });
    const error = failure({ [PRICES_FILE_ENV]: bad });
    expect(error.file).toBe(bad);
    expect(error.entry).toBe('models.openai.gpt-4o.input');
    expect(error.message).toContain(`Price file ${bad}, entry models.openai.gpt-4o.input:`);
    expect(error.cause).toBeInstanceOf(z.ZodError);
  });

  it('refuses a misspelt price name, a date that is not one, a file that is not JSON and one that is missing', () => {
    const typo = failure({
      [PRICES_FILE_ENV]: file('typo.json', { takenOn: '2026-11-30', models: { openai: { 'gpt-4o': { input: 1, output: 2, cachedInput: 0.5 } } } }),
    });
    expect(typo.entry).toBe('models.openai.gpt-4o');
    expect(typo.message).toContain('cachedInput');
    expect(failure({ [PRICES_FILE_ENV]: file('date.json', { takenOn: 'last week', models: {} }) }).entry).toBe('takenOn');
    const notJson = failure({ [PRICES_FILE_ENV]: file('bad.json', '{ "takenOn": ') });
    expect(notJson.message).toMatch(/is not JSON$/);
    expect(notJson.cause).toBeInstanceOf(SyntaxError);
    const missing = failure({ [PRICES_FILE_ENV]: path.join(dir, 'nowhere.json') });
    expect(missing.message).toContain('cannot be read (set by GNL_PRICES_FILE)');
    expect((missing.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('for a page, a bad file leaves every price unknown and says why, rather than using prices it meant to replace', () => {
    const bad = file('page.json', { takenOn: '2026-11-30', models: { openai: { 'gpt-4o': { input: '2.5', output: 10 } } } });
    const table = pagePriceTable({ [PRICES_FILE_ENV]: bad });
    expect(table.models).toEqual({});
    expect(table.problem).toContain(`Price file ${bad}, entry models.openai.gpt-4o.input:`);
  });
});
