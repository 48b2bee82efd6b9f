import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { MigrateForm } from '@/components/versions/migrate-form';
import { MigrationPreviewView } from '@/components/versions/migration-preview';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { runHref } from '@/lib/studio/reads/run-path';
import { loadMigrationPreview } from '@/lib/studio/reads/versions';

export const metadata: Metadata = { title: 'Migrate a run' };

type SearchParams = Promise<{ run?: string | string[]; to?: string | string[] }>;

export default async function MigratePage({ searchParams }: { searchParams: SearchParams }) {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const { run, to } = await searchParams;
  const runId = typeof run === 'string' ? run : undefined;
  const target = typeof to === 'string' && to !== '' ? to : undefined;
  const loaded = runId ? await loadMigrationPreview(runId, target) : { ok: false as const, message: 'Name the run to migrate (?run=…).' };
  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <Link href="/versions" className="text-sm text-muted-foreground hover:text-foreground">
          ← Versions
        </Link>
        <h1 className="text-xl font-semibold tracking-tight">Migrate a run</h1>
        {runId ? (
          <p className="font-mono text-sm wrap-anywhere">
            <Link href={runHref(runId)} className="text-link hover:underline">
              <VisibleText text={runId} />
            </Link>
          </p>
        ) : null}
      </div>
      {loaded.ok ? (
        <>
          <MigrationPreviewView preview={loaded.preview} />
          <MigrateForm runId={loaded.preview.runId} to={loaded.preview.to} safe={loaded.preview.safe} />
        </>
      ) : (
        <p className="text-sm" role="alert" data-testid="migration-refused">
          <VisibleText text={loaded.message} />
        </p>
      )}
    </div>
  );
}
