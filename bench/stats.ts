/** Shared by the benchmark scripts: percentiles, a printed table, results written to bench/results/ (git-ignored). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export function latency(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, medianMs: round(percentile(sorted, 50)), p90Ms: round(percentile(sorted, 90)), p99Ms: round(percentile(sorted, 99)) };
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function printTable(title: string, rows: Record<string, unknown>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export function writeResults(name: string, results: unknown): string {
  const dir = path.join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  return path.relative(process.cwd(), file);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Median, p90 and p99 of samples (any unit), and how many. */
export function summary(samples: readonly number[], digits = 3) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: round(percentile(sorted, 50), digits),
    p90: round(percentile(sorted, 90), digits),
    p99: round(percentile(sorted, 99), digits),
  };
}

export type Summary = ReturnType<typeof summary>;

/** `value / floor`, rounded; NaN-safe for the report. */
export function ratio(value: number, floor: number, digits = 2): number {
  return floor > 0 && Number.isFinite(value) ? round(value / floor, digits) : Number.NaN;
}

/** The URL of another database on the server of `url`. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
