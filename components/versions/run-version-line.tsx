import Link from 'next/link';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunVersionInfo } from '@/lib/studio/reads/versions';
import { cn } from '@/lib/utils';
import { migrateHref } from './migrate-href';

const HOW: Record<RunVersionInfo['kind'], string> = {
  pinned: 'this deployment continues it on that version',
  continues: 'the current version takes it over at its next step (onChange continue)',
  stranded: 'no registered version matches it: it cannot continue until it is migrated',
};

/** Which agent version the run runs on, its last migration, and how this deployment continues it. */
export function RunVersionLine({ info, runId, className, ...props }: React.ComponentProps<'p'> & { info: RunVersionInfo; runId: string }) {
  return (
    <p className={cn('text-sm text-muted-foreground', className)} data-testid="run-version" data-kind={info.kind} {...props}>
      <VisibleText text={info.agent} /> version{' '}
      <code className="font-mono" data-testid="run-version-value">
        {info.version ? <VisibleText text={info.version} /> : '?'}
      </code>
      {info.lastMigration ? (
        <>
          {' '}
          (migrated from <code className="font-mono">{info.lastMigration.from ? <VisibleText text={info.lastMigration.from} /> : '?'}</code> by{' '}
          <VisibleText text={info.lastMigration.by} /> <Time value={info.lastMigration.at} />)
        </>
      ) : null}
      {' · '}
      {HOW[info.kind]}
      {info.kind === 'stranded' ? (
        <>
          {' · '}
          <Link href={migrateHref(runId, info.deployed)} className="text-link hover:underline" data-testid="run-migrate-link">
            Preview migration to <code className="font-mono">{info.deployed}</code>
          </Link>
        </>
      ) : null}
    </p>
  );
}
