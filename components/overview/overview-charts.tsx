'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { usdText } from '@/lib/cost';
import type { RunStatus } from '@/lib/durable';
import type { DayRow } from '@/lib/studio/reads/overview-shape';

/** A status's colour in the charts: keyed by the union, as the status badge is. */
const STATUS_FILL = {
  running: '#0ea5e9',
  'waiting-approval': '#f59e0b',
  'waiting-tool-result': '#8b5cf6',
  waiting: '#6366f1',
  blocked: '#ea580c',
  completed: '#10b981',
  failed: '#ef4444',
  canceled: '#94a3b8',
} satisfies Record<RunStatus, string>;
const SERIES = ['#0ea5e9', '#8b5cf6', '#10b981', '#f59e0b', '#ef4444', '#64748b', '#ec4899', '#14b8a6'];

const fillOfStatus = (status: string, i: number): string =>
  Object.hasOwn(STATUS_FILL, status) ? STATUS_FILL[status as RunStatus] : (SERIES[i % SERIES.length] ?? '#64748b');
const shortDay = (day: string) => day.slice(5);

/** Stacked bars per day: one series per name, each with its colour. */
function DayBars({
  rows,
  names,
  fill,
  unit,
  testId,
  format = (n) => `${n.toLocaleString('en-US')} ${unit}`,
}: {
  rows: DayRow[];
  names: string[];
  fill: (name: string, i: number) => string;
  unit: string;
  testId: string;
  /** A value as the tooltip shows it (default: the number and the unit). */
  format?: (value: number) => string;
}) {
  const money = unit === 'USD';
  return (
    <div className="h-64" data-testid={testId} data-series={names.join(' ')}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey="day" tickFormatter={shortDay} fontSize={11} />
          <YAxis allowDecimals={money} fontSize={11} width={56} tickFormatter={(n: number) => (money ? usdText(n) : n.toLocaleString('en-US'))} />
          <Tooltip formatter={(value) => format(Number(value))} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {names.map((name, i) => (
            <Bar key={name} dataKey={name} stackId="day" fill={fill(name, i)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function RunsByStatusChart({ rows, statuses }: { rows: DayRow[]; statuses: string[] }) {
  return <DayBars rows={rows} names={statuses} fill={fillOfStatus} unit="runs" testId="overview-status-chart" />;
}

export function TokensByAgentChart({ rows, agents }: { rows: DayRow[]; agents: string[] }) {
  return <DayBars rows={rows} names={agents} fill={(_, i) => SERIES[i % SERIES.length] ?? '#64748b'} unit="tokens" testId="overview-tokens-chart" />;
}

/** The known part of each agent's cost per day (steps without a price add nothing here; the page lists them). */
export function CostByAgentChart({ rows, agents }: { rows: DayRow[]; agents: string[] }) {
  return (
    <DayBars rows={rows} names={agents} fill={(_, i) => SERIES[i % SERIES.length] ?? '#64748b'} unit="USD" format={usdText} testId="overview-cost-chart" />
  );
}
