'use client';

import { useQuery } from '@tanstack/react-query';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { VisibleText } from '@/components/ui/visible-text';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import type { DemoServiceState } from '@/lib/studio/demo';
import { demoStatsQuery } from '@/lib/studio/reads/queries';

const KINDS = ['tickets', 'refunds', 'emails'] as const;

/**
 * The outside service's own counters: what it really performed, by request and (with `keys`) for the
 * idempotency keys of one run. "At most once" is judged by these numbers, not by the journal.
 */
export function DemoCounters({ initial, keys }: { initial?: DemoServiceState; keys?: readonly string[] }) {
  const { data, error } = useQuery({ ...demoStatsQuery(), ...(initial ? { initialData: initial } : {}) });
  if (error) return <p className="text-xs text-muted-foreground">The counters could not be read: {error.message}</p>;
  if (!data) return <p className="text-xs text-muted-foreground">Reading the outside service’s counters…</p>;
  if ('error' in data) {
    return (
      <Alert variant="warning" data-testid="demo-service-down">
        <AlertDescription>{data.error}</AlertDescription>
      </Alert>
    );
  }
  const { stats } = data;
  const rows = keys
    ? KINDS.flatMap((kind) =>
        keys.flatMap((key) => {
          const counted = stats[kind].byKey[key];
          return counted ? [{ label: `${kind} · ${key}`, kind, requests: counted.requests, performed: counted.performed, deduplicated: undefined }] : [];
        }),
      )
    : KINDS.map((kind) => ({ label: kind, kind, requests: stats[kind].requests, performed: stats[kind].performed, deduplicated: stats[kind].deduplicated }));
  return (
    <div className="space-y-1" data-testid="demo-counters">
      <p className="text-xs text-muted-foreground">
        Counted by the outside service at <code className="font-mono">{data.url}</code>
        {keys ? ' for this run’s idempotency keys' : ''}.
      </p>
      {rows.length === 0 ? (
        <p className="text-xs text-muted-foreground">It has performed nothing for this run yet.</p>
      ) : (
        <Table>
          <TableHeader>
            <TableRow>
              <TableHead>{keys ? 'Operation and key' : 'Operation'}</TableHead>
              <TableHead className="text-right">Requests</TableHead>
              <TableHead className="text-right">Performed</TableHead>
              {keys ? null : <TableHead className="text-right">Deduplicated</TableHead>}
            </TableRow>
          </TableHeader>
          <TableBody>
            {rows.map((row) => (
              <TableRow key={row.label} data-testid="demo-counter" data-kind={row.kind}>
                <TableCell className="font-mono text-xs wrap-anywhere">
                  <VisibleText text={row.label} />
                </TableCell>
                <TableCell className="text-right tabular-nums">{row.requests}</TableCell>
                <TableCell className="text-right tabular-nums" data-slot="performed">
                  {row.performed}
                </TableCell>
                {keys ? null : <TableCell className="text-right tabular-nums">{row.deduplicated}</TableCell>}
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </div>
  );
}
