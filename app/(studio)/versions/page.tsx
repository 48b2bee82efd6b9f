import type { Metadata } from 'next';
import { connection } from 'next/server';
import { StrandedRuns } from '@/components/versions/stranded-runs';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { listAgentVersions, loadStrandedRuns, STRANDED_SCAN_LIMIT } from '@/lib/studio/reads/versions';

export const metadata: Metadata = { title: 'Versions' };

export default async function VersionsPage() {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const versions = listAgentVersions();
  const stranded = await loadStrandedRuns();
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Versions</h1>
        <p className="text-sm text-muted-foreground">
          The agent versions this deployment registers. A run continues on the version it started on while that version is registered, or on the current one
          when it declares onChange &apos;continue&apos; and the change is one a recorded run absorbs. A run neither can continue is stranded: migrate it after
          a preview, or abandon it.
        </p>
      </div>
      <ul className="space-y-1 text-sm" data-testid="agent-versions">
        {versions.map((v) => (
          <li key={`${v.name}:${v.version}`} data-testid="agent-version" data-current={v.current}>
            <VisibleText text={v.name} /> <code className="font-mono">{v.version}</code> · onChange {v.onChange}
            {v.current ? ' · current: new runs start on it' : ''}
          </li>
        ))}
      </ul>
      <section className="space-y-2">
        <h2 className="font-medium">Stranded runs</h2>
        <p className="text-xs text-muted-foreground">
          {stranded.scanned} open run{stranded.scanned === 1 ? '' : 's'} checked
          {stranded.more ? ` (the newest ${STRANDED_SCAN_LIMIT} of each status; older ones are not listed here)` : ''}.
        </p>
        <StrandedRuns runs={stranded.runs} />
      </section>
    </div>
  );
}
