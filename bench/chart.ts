/**
 * The chart (hand-written SVG, no dependency): left, overhead per step (median, p90 whisker) on Postgres
 * and PGlite beside the floor × the step's commits; right, resume time against recorded steps (log-log)
 * on both journals, with the SELECT of the same rows and the journal's load alone.
 */
import type { FigureResult } from './report-types';

type Point = { n: number; ms: number };

const COLORS = { postgres: '#2563eb', pglite: '#059669', floor: '#9ca3af', load: '#d97706', select: '#6b7280' };
const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const fmt = (ms: number) =>
  ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(ms >= 1 ? 1 : 2)} ms`;

function text(x: number, y: number, s: string, opts: { size?: number; anchor?: string; color?: string; weight?: string } = {}) {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-size="${opts.size ?? 11}" text-anchor="${opts.anchor ?? 'start'}" fill="${opts.color ?? '#111827'}"${opts.weight ? ` font-weight="${opts.weight}"` : ''}>${esc(s)}</text>`;
}

function overheadPanel(fig1: FigureResult | undefined, x0: number, y0: number, w: number, h: number): string {
  const out: string[] = [text(x0, y0 - 14, 'Overhead per step (20-step agent, 3 commits a step)', { size: 13, weight: '600' })];
  const data = fig1?.data as
    | Record<string, { overheadPerStep: { median: number; p90: number }; floor: { median: number }; counts: { perStep: { commits: number } } }>
    | undefined;
  if (!data) return [...out, text(x0, y0 + 20, 'figure 1 did not run')].join('\n');
  const bars = (['postgres', 'pglite'] as const).flatMap((j) => {
    const d = data[j];
    if (!d) return [];
    return [
      { label: `${j}: runDurable`, value: d.overheadPerStep.median, p90: d.overheadPerStep.p90, color: COLORS[j] },
      { label: `${j}: floor × ${d.counts.perStep.commits} commits`, value: d.floor.median * d.counts.perStep.commits, p90: undefined, color: COLORS.floor },
    ];
  });
  const max = Math.max(...bars.map((b) => b.p90 ?? b.value)) * 1.15 || 1;
  const bw = w / bars.length;
  out.push(`<line x1="${x0}" y1="${y0 + h}" x2="${x0 + w}" y2="${y0 + h}" stroke="#d1d5db"/>`);
  bars.forEach((b, i) => {
    const x = x0 + i * bw + bw * 0.2;
    const bh = (b.value / max) * h;
    out.push(`<rect x="${x.toFixed(1)}" y="${(y0 + h - bh).toFixed(1)}" width="${(bw * 0.6).toFixed(1)}" height="${bh.toFixed(1)}" fill="${b.color}" rx="2"/>`);
    if (b.p90 !== undefined) {
      const yp = y0 + h - (b.p90 / max) * h;
      const cx = x + bw * 0.3;
      out.push(
        `<line x1="${cx}" y1="${(y0 + h - bh).toFixed(1)}" x2="${cx}" y2="${yp.toFixed(1)}" stroke="#111827"/><line x1="${cx - 5}" y1="${yp.toFixed(1)}" x2="${cx + 5}" y2="${yp.toFixed(1)}" stroke="#111827"/>`,
      );
    }
    out.push(text(x + bw * 0.3, y0 + h - bh - 4, fmt(b.value), { anchor: 'middle' }));
    const [first, second] = b.label.split(': ');
    out.push(
      text(x + bw * 0.3, y0 + h + 14, first ?? '', { anchor: 'middle', size: 10 }),
      text(x + bw * 0.3, y0 + h + 26, second ?? '', { anchor: 'middle', size: 10 }),
    );
  });
  out.push(text(x0, y0 + h + 44, 'bars: median; whisker: p90. Grey: one-row INSERT commit (same server) × commits per step', { size: 10, color: '#4b5563' }));
  return out.join('\n');
}

function resumePanel(fig2: FigureResult | undefined, x0: number, y0: number, w: number, h: number): string {
  const out: string[] = [text(x0, y0 - 14, 'Resume: call → first unrecorded step, by recorded steps', { size: 13, weight: '600' })];
  const data = fig2?.data as
    | { series: Record<string, { n: number; median: number; select: number }[]>; load: { n: number; load: number; select: number }[] }
    | undefined;
  if (!data) return [...out, text(x0, y0 + 20, 'figure 2 did not run')].join('\n');
  const lines: { label: string; color: string; dash?: string; points: Point[] }[] = [
    { label: 'Postgres: resume (SDK replay)', color: COLORS.postgres, points: (data.series.postgres ?? []).map((p) => ({ n: p.n, ms: p.median })) },
    { label: 'PGlite: resume (SDK replay)', color: COLORS.pglite, points: (data.series.pglite ?? []).map((p) => ({ n: p.n, ms: p.median })) },
    { label: 'Postgres: the journal’s load (one query)', color: COLORS.load, dash: '6 3', points: data.load.map((p) => ({ n: p.n, ms: p.load })) },
    {
      label: 'Postgres: raw SELECT of the rows',
      color: COLORS.select,
      dash: '2 3',
      points: [...(data.series.postgres ?? []).map((p) => ({ n: p.n, ms: p.select })), ...data.load.map((p) => ({ n: p.n, ms: p.select }))]
        .filter((p, i, list) => list.findIndex((q) => q.n === p.n) === i)
        .sort((a, b) => a.n - b.n),
    },
  ].filter((l) => l.points.length > 0);
  const all = lines.flatMap((l) => l.points);
  const lx = (v: number) => Math.log10(Math.max(v, 1e-3));
  const [nMin, nMax] = [Math.floor(lx(Math.min(...all.map((p) => p.n)))), Math.ceil(lx(Math.max(...all.map((p) => p.n))))];
  const [mMin, mMax] = [Math.floor(lx(Math.min(...all.map((p) => p.ms)))), Math.ceil(lx(Math.max(...all.map((p) => p.ms))))];
  const px = (n: number) => x0 + ((lx(n) - nMin) / Math.max(1, nMax - nMin)) * w;
  const py = (ms: number) => y0 + h - ((lx(ms) - mMin) / Math.max(1, mMax - mMin)) * h;
  for (let e = nMin; e <= nMax; e++) {
    out.push(
      `<line x1="${px(10 ** e)}" y1="${y0}" x2="${px(10 ** e)}" y2="${y0 + h}" stroke="#f3f4f6"/>`,
      text(px(10 ** e), y0 + h + 14, (10 ** e).toLocaleString('en'), { anchor: 'middle', size: 10 }),
    );
  }
  for (let e = mMin; e <= mMax; e++) {
    out.push(
      `<line x1="${x0}" y1="${py(10 ** e)}" x2="${x0 + w}" y2="${py(10 ** e)}" stroke="#f3f4f6"/>`,
      text(x0 - 6, py(10 ** e) + 4, fmt(10 ** e), { anchor: 'end', size: 10 }),
    );
  }
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="none" stroke="#d1d5db"/>`);
  out.push(text(x0 + w / 2, y0 + h + 30, 'recorded steps (log)', { anchor: 'middle', size: 10, color: '#4b5563' }));
  lines.forEach((l, i) => {
    const d = l.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${px(p.n).toFixed(1)},${py(p.ms).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${l.color}" stroke-width="2"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/>`);
    for (const p of l.points) out.push(`<circle cx="${px(p.n).toFixed(1)}" cy="${py(p.ms).toFixed(1)}" r="3" fill="${l.color}"/>`);
    const ly = y0 + h + 46 + i * 14;
    out.push(
      `<line x1="${x0}" y1="${ly - 4}" x2="${x0 + 18}" y2="${ly - 4}" stroke="${l.color}" stroke-width="2"${l.dash ? ` stroke-dasharray="${l.dash}"` : ''}/>`,
      text(x0 + 24, ly, l.label, { size: 10 }),
    );
  });
  return out.join('\n');
}

export function chartSvg(figures: FigureResult[], caption: string): string {
  const W = 980;
  const H = 420;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">`,
    `<title>GNL benchmark: overhead per journaled step and resume time against history length</title>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    overheadPanel(
      figures.find((f) => f.id === '1'),
      40,
      50,
      380,
      250,
    ),
    resumePanel(
      figures.find((f) => f.id === '2'),
      540,
      50,
      400,
      220,
    ),
    text(W / 2, H - 8, caption, { anchor: 'middle', size: 10, color: '#6b7280' }),
    '</svg>',
    '',
  ].join('\n');
}
