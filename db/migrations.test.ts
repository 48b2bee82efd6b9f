import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMigrationsModule } from '@/scripts/embed-migrations';

describe('migrations', () => {
  it('the embedded migrations equal the committed drizzle-kit SQL files (run npm run db:generate after changing db/schema.ts)', () => {
    const embedded = readFileSync(path.resolve(import.meta.dirname, 'migrations.generated.ts'), 'utf8');
    expect(embedded).toBe(renderMigrationsModule());
  });
});
