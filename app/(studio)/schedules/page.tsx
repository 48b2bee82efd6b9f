import type { Metadata } from 'next';
import { connection } from 'next/server';
import { SchedulesTable } from '@/components/schedules/schedules-table';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadSchedules } from '@/lib/studio/reads/schedules';

export const metadata: Metadata = { title: 'Schedules' };

export default async function SchedulesPage() {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const schedules = await loadSchedules();
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Schedules</h1>
        <p className="text-sm text-muted-foreground">
          Agents started on a cron schedule. Every executor (this server, each worker) starts the due slots, unless an operator paused the schedule; each slot
          is one run, named by the schedule and the slot. Times are UTC; each cron is read in its own time zone.
        </p>
      </div>
      {schedules.length === 0 ? (
        <p className="rounded-md border p-3 text-sm text-muted-foreground" data-testid="schedules-empty">
          No schedules: this deployment declares none (agents/schedules.ts) and no executor has ticked any.
        </p>
      ) : (
        <SchedulesTable schedules={schedules} />
      )}
    </div>
  );
}
