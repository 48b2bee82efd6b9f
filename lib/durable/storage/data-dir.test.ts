/** The embedded journal's folder from the environment (data-dir.ts): an empty GNL_DATA_DIR is unset, never an in-memory journal. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDirFromEnv } from './data-dir';

describe('dataDirFromEnv', () => {
  it('takes GNL_DATA_DIR as given, and .gnl/data in the working directory when it is unset, empty or blank', () => {
    const fallback = path.join(process.cwd(), '.gnl', 'data');
    expect(dataDirFromEnv({ GNL_DATA_DIR: '/srv/gnl/data' })).toBe('/srv/gnl/data');
    expect(dataDirFromEnv({ GNL_DATA_DIR: ' /srv/gnl/data ' })).toBe('/srv/gnl/data');
    expect(dataDirFromEnv({})).toBe(fallback);
    // A `GNL_DATA_DIR=` line in a .env file: taken as given, PGlite would open a journal in memory, lost at exit.
    expect(dataDirFromEnv({ GNL_DATA_DIR: '' })).toBe(fallback);
    expect(dataDirFromEnv({ GNL_DATA_DIR: '   ' })).toBe(fallback);
  });
});
