import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { RunIdLink } from '@/components/memory/run-id-link';
import { WorkingMemoryCard } from '@/components/memory/working-memory-card';
import { JsonPayload } from '@/components/runs/json-payload';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadResourceMemory, MEMORY_PAGE_LIMIT } from '@/lib/studio/reads/memory';
import { resourceOfSegment } from '@/lib/studio/reads/memory-path';
import { markedText } from '@/lib/text';

type Params = Promise<{ resource: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const resource = resourceOfSegment((await params).resource);
  return { title: resource === undefined ? 'Not found' : `Memory of ${markedText(resource)}` };
}

/** One resource's memory: its working memory (every version, editable with a reason), its threads, its newest items. */
export default async function ResourceMemoryPage({ params }: { params: Params }) {
  await connection();
  await requireOperator();
  const resource = resourceOfSegment((await params).resource);
  const memory = resource === undefined ? undefined : await loadResourceMemory(resource);
  if (!memory) notFound();
  const [current, ...older] = memory.versions;
  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <Link href="/memory" className="text-sm text-muted-foreground hover:text-foreground">
          ← Memory
        </Link>
        <h1 className="font-mono text-lg font-semibold wrap-anywhere" data-testid="memory-resource-id">
          <VisibleText text={memory.resource} />
        </h1>
      </div>

      <WorkingMemoryCard resource={memory.resource} current={current} />

      {older.length > 0 ? (
        <section className="space-y-2" data-testid="memory-versions">
          <h2 className="font-medium">Earlier versions</h2>
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Version</TableHead>
                <TableHead>Written by</TableHead>
                <TableHead>Why</TableHead>
                <TableHead>When</TableHead>
                <TableHead>Value</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {older.map((v) => (
                <TableRow key={v.version} data-testid="memory-version">
                  <TableCell className="tabular-nums">{v.version}</TableCell>
                  <TableCell>
                    <VisibleText text={v.updatedBy} />
                    {v.runId ? (
                      <>
                        {' in '}
                        <RunIdLink runId={v.runId} />
                      </>
                    ) : null}
                  </TableCell>
                  <TableCell>
                    <VisibleText text={v.reason ?? '—'} />
                  </TableCell>
                  <TableCell>
                    <Time value={v.at} />
                  </TableCell>
                  <TableCell className="max-w-md">
                    <JsonPayload value={v.value} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </section>
      ) : null}

      <section className="space-y-2" data-testid="memory-threads">
        <h2 className="font-medium">Threads</h2>
        {memory.threads.length === 0 ? (
          <p className="text-sm text-muted-foreground">No conversation of this resource is remembered.</p>
        ) : (
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Thread</TableHead>
                <TableHead className="text-right">Messages</TableHead>
                <TableHead>First</TableHead>
                <TableHead>Last</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {memory.threads.map((t) => (
                <TableRow key={t.thread} data-testid="memory-thread">
                  <TableCell className="font-mono wrap-anywhere">
                    <VisibleText text={t.thread} />
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{t.messages}</TableCell>
                  <TableCell>
                    <Time value={t.firstAt} />
                  </TableCell>
                  <TableCell>
                    <Time value={t.lastAt} />
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </section>

      <section className="space-y-2" data-testid="memory-items">
        <h2 className="font-medium">Newest items</h2>
        {memory.items.length === 0 ? (
          <p className="text-sm text-muted-foreground">No fact or message is remembered.</p>
        ) : (
          <ul className="space-y-2">
            {memory.items.map((item) => (
              <li key={item.id} className="rounded-md border px-3 py-2 text-sm" data-testid="memory-item" data-kind={item.kind}>
                <p className="text-xs text-muted-foreground">
                  {item.kind === 'fact' ? 'Fact' : `Message (${item.role ?? 'unknown role'})`}
                  {item.thread ? (
                    <>
                      {' in '}
                      <span className="font-mono">
                        <VisibleText text={item.thread} />
                      </span>
                    </>
                  ) : null}
                  {' · '}
                  <Time value={item.createdAt} />
                  {item.runId ? (
                    <>
                      {' · '}
                      <RunIdLink runId={item.runId} />
                    </>
                  ) : null}
                </p>
                <p className="whitespace-pre-wrap wrap-anywhere">
                  <VisibleText text={item.text} />
                </p>
              </li>
            ))}
          </ul>
        )}
        {memory.items.length === MEMORY_PAGE_LIMIT ? (
          <p className="text-xs text-muted-foreground">The newest {MEMORY_PAGE_LIMIT} are shown (gnl memory show for the rest).</p>
        ) : null}
      </section>
    </div>
  );
}
