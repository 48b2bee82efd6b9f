'use client';

import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, ReferenceArea, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { RunWaterfall, WaterfallBar, WaterfallGap } from '@/lib/durable/projection';
import { waterfallGaps } from '@/lib/durable/projection';
import { cn } from '@/lib/utils';
import { formatMs } from './run-totals';

/** Rows drawn at most: the newest calls of a long run (the timeline below holds every one). */
export const WATERFALL_MAX_BARS = 60;
const ROW_PX = 14;

/** A bar's colour: its kind when it went well, its outcome when not (a Record per union, so a new one must be given one). */
const KIND_COLOUR = { model: '#0ea5e9', tool: '#8b5cf6', 'side-effect': '#059669' } satisfies Record<WaterfallBar['kind'], string>;
const OUTCOME_COLOUR = { error: '#ef4444', unknown: '#f59e0b', open: '#94a3b8' } satisfies Record<Exclude<WaterfallBar['outcome'], 'ok'>, string>;
const GAP = {
  person: { colour: '#f59e0b', label: 'waiting for a person' },
  interruption: { colour: '#ef4444', label: 'interrupted' },
  failure: { colour: '#64748b', label: 'failed' },
  retry: { colour: '#64748b', label: 'failed, retry scheduled' },
} satisfies Record<WaterfallGap['kind'], { colour: string; label: string }>;

const colourOf = (bar: WaterfallBar) => (bar.outcome === 'ok' ? KIND_COLOUR[bar.kind] : OUTCOME_COLOUR[bar.outcome]);

interface Row {
  row: number;
  bar: WaterfallBar;
  /** Seconds from the run's first event: [start, end]. */
  span: [number, number];
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s` : formatMs(ms);
}

/**
 * The run as a waterfall (run-waterfall.ts): each model call and tool call attempt a bar on the run's
 * clock, coloured by kind and outcome; the time between invocations shaded (a wait for a person, an
 * interruption, a failure). A bar links to its event in the timeline.
 */
export function RunWaterfallChart({ waterfall, now, className, ...props }: React.ComponentProps<'section'> & { waterfall: RunWaterfall; now: number }) {
  const { rows, gaps, origin, shownFrom } = useMemo(() => {
    const bars = waterfall.bars.slice(-WATERFALL_MAX_BARS);
    const first = waterfall.invocations.invocations[0];
    const origin = Math.min(first?.at ?? Number.POSITIVE_INFINITY, waterfall.bars[0]?.startMs ?? Number.POSITIVE_INFINITY);
    const shownFrom = bars[0]?.startMs ?? origin;
    const rows: Row[] = bars.map((bar, row) => ({ row, bar, span: [(bar.startMs - origin) / 1000, (bar.endMs - origin) / 1000] }));
    const gaps = waterfallGaps(waterfall.invocations.invocations).filter((gap) => (gap.toMs ?? now) >= shownFrom);
    return { rows, gaps, origin, shownFrom };
  }, [waterfall, now]);
  if (!Number.isFinite(origin)) return null;
  const hidden = waterfall.bars.length - rows.length + (waterfall.trimmed ?? 0);
  const persons = gaps.filter((g) => g.kind === 'person').length;
  const interruptions = gaps.filter((g) => g.kind === 'interruption').length;
  const rel = (ms: number) => Math.max((ms - origin) / 1000, 0);

  return (
    <section
      data-testid="run-waterfall"
      data-bars={rows.length}
      data-gaps={gaps.map((g) => g.kind).join(' ')}
      className={cn('space-y-2 rounded-lg border p-4', className)}
      {...props}
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-base font-semibold tracking-tight">The run on its clock</h2>
        <p className="text-xs text-muted-foreground">
          {rows.length} call{rows.length === 1 ? '' : 's'}
          {hidden > 0 ? ` (the newest; ${hidden} earlier in the journal)` : ''}
          {persons ? ` · ${persons} wait${persons === 1 ? '' : 's'} for a person` : ''}
          {interruptions ? ` · ${interruptions} interruption${interruptions === 1 ? '' : 's'}` : ''}
        </p>
      </div>
      {rows.length === 0 && gaps.length === 0 ? (
        <p className="text-sm text-muted-foreground">No model or tool call recorded yet.</p>
      ) : (
        <div style={{ height: Math.max(rows.length, 3) * ROW_PX + 48 }}>
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 16, left: 8 }} barCategoryGap={2}>
              <CartesianGrid horizontal={false} strokeDasharray="3 3" />
              <XAxis
                type="number"
                domain={[rel(shownFrom), 'dataMax']}
                tickFormatter={(s: number) => seconds(s * 1000)}
                fontSize={11}
                label={{ value: 'since the run began', position: 'insideBottom', offset: -8, fontSize: 11 }}
              />
              <YAxis type="category" dataKey="row" width={110} fontSize={11} interval={0} tickFormatter={(row: number) => rows[row]?.bar.label ?? ''} />
              {gaps.map((gap) => (
                <ReferenceArea
                  key={`${gap.kind}:${gap.fromMs}`}
                  x1={rel(Math.max(gap.fromMs, shownFrom))}
                  x2={rel(gap.toMs ?? now)}
                  fill={GAP[gap.kind].colour}
                  fillOpacity={0.12}
                  ifOverflow="extendDomain"
                  label={{ value: GAP[gap.kind].label, position: 'insideTop', fontSize: 10 }}
                />
              ))}
              <Tooltip cursor={{ fillOpacity: 0.06 }} content={<BarTooltip />} />
              <Bar
                dataKey="span"
                minPointSize={2}
                isAnimationActive={false}
                onClick={(entry: { payload?: Row }) => {
                  if (entry.payload) window.location.hash = `seq-${entry.payload.bar.seq}`;
                }}
                className="cursor-pointer"
              >
                {rows.map((r) => (
                  <Cell key={r.bar.id} fill={colourOf(r.bar)} data-kind={r.bar.kind} data-outcome={r.bar.outcome} />
                ))}
              </Bar>
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground" aria-label="Legend">
        <Swatch colour={KIND_COLOUR.model}>model call</Swatch>
        <Swatch colour={KIND_COLOUR.tool}>tool call</Swatch>
        <Swatch colour={KIND_COLOUR['side-effect']}>side effect</Swatch>
        <Swatch colour={OUTCOME_COLOUR.error}>error</Swatch>
        <Swatch colour={OUTCOME_COLOUR.unknown}>outcome unknown</Swatch>
        <Swatch colour={GAP.person.colour} faint>
          waiting for a person
        </Swatch>
        <Swatch colour={GAP.interruption.colour} faint>
          interrupted
        </Swatch>
      </ul>
    </section>
  );
}

function Swatch({ colour, faint, children }: { colour: string; faint?: boolean; children: React.ReactNode }) {
  return (
    <li className="flex items-center gap-1.5">
      <span aria-hidden className="inline-block size-2.5 rounded-sm" style={{ backgroundColor: colour, opacity: faint ? 0.35 : 1 }} />
      {children}
    </li>
  );
}

const OUTCOME_TEXT = { ok: 'returned', error: 'failed', unknown: 'outcome unknown', open: 'running' } satisfies Record<WaterfallBar['outcome'], string>;

function BarTooltip({ active, payload }: { active?: boolean; payload?: readonly { payload?: Row }[] }) {
  const row = active ? payload?.[0]?.payload : undefined;
  if (!row) return null;
  const { bar } = row;
  return (
    <div className="rounded-md border bg-background px-2.5 py-1.5 text-xs shadow-sm">
      <p className="font-medium">
        {bar.kind === 'model' ? `Model ${bar.label}` : bar.label}
        {bar.attempt && bar.attempt > 1 ? ` (attempt ${bar.attempt})` : ''}
      </p>
      <p className="text-muted-foreground">
        {OUTCOME_TEXT[bar.outcome]}
        {bar.source ? ` (${bar.source})` : ''} · {formatMs(bar.endMs - bar.startMs)} · #{bar.seq}
      </p>
    </div>
  );
}
