import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadMemoryResources, MEMORY_PAGE_LIMIT } from '@/lib/studio/reads/memory';
import { memoryHref } from '@/lib/studio/reads/memory-path';
import { parseFilterText } from '@/lib/studio/reads/runs';

export const metadata: Metadata = { title: 'Memory' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** What agents remember, by resource (a customer, a user): docs/memory.md. */
export default async function MemoryPage({ searchParams }: { searchParams: SearchParams }) {
  await connection(); // read per request, never prerendered
  await requireOperator();
  const q = parseFilterText((await searchParams).q);
  const resources = await loadMemoryResources(q);
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Memory</h1>
        <p className="text-sm text-muted-foreground">
          What agents remember across runs, by resource: facts, conversation threads and a working memory record. A run records what it was given, so a resume
          sees what the run first saw, whatever changed here since.
        </p>
      </div>
      <form className="flex gap-2" action="/memory">
        <input
          name="q"
          defaultValue={q ?? ''}
          placeholder="Resource id contains…"
          aria-label="Search resources"
          className="h-8 w-72 rounded-md border bg-transparent px-2 text-sm"
        />
        <button type="submit" className="h-8 rounded-md border px-3 text-sm">
          Search
        </button>
      </form>
      {resources.length === 0 ? (
        <p className="rounded-md border p-3 text-sm text-muted-foreground" data-testid="memory-empty">
          {q ? 'No resource id holds that text.' : 'Memory holds nothing yet: no agent with memory has run, and nothing was remembered.'}
        </p>
      ) : (
        <Table data-testid="memory-resources">
          <TableHeader>
            <TableRow>
              <TableHead>Resource</TableHead>
              <TableHead className="text-right">Items</TableHead>
              <TableHead className="text-right">Working memory versions</TableHead>
              <TableHead>Last written</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {resources.map((r) => (
              <TableRow key={r.resource} data-testid="memory-resource">
                <TableCell className="font-mono">
                  <Link href={memoryHref(r.resource)} className="text-link hover:underline wrap-anywhere">
                    <VisibleText text={r.resource} />
                  </Link>
                </TableCell>
                <TableCell className="text-right tabular-nums">{r.items}</TableCell>
                <TableCell className="text-right tabular-nums">{r.versions}</TableCell>
                <TableCell>
                  <Time value={r.lastAt} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      {resources.length === MEMORY_PAGE_LIMIT ? (
        <p className="text-xs text-muted-foreground">The {MEMORY_PAGE_LIMIT} most recently written are shown: search for others.</p>
      ) : null}
    </div>
  );
}
