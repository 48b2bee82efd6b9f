/** CPU time from /proc (Linux), for the throughput benches: a process's, every Postgres process's, the machine's. */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ

/**
 * CPU seconds (user + system) of one process, 0 once it is gone; `reaped`: with its children's that ended
 * and were waited for (the postmaster's: every backend that closed, which /proc no longer lists).
 */
export function cpuOf(pid: number, reaped = false): number {
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) / TICKS;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of every process named postgres (the server's backends, its writers), backends that closed
 * included (their time is the postmaster's reaped children's): a pool that closes a connection mid-bench
 * does not take its backend's time with it.
 */
export function postgresCpu(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (/^Name:\s+postgres$/m.test(readFileSync(`/proc/${entry}/status`, 'utf8'))) total += cpuOf(Number(entry), true);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/** CPU seconds the whole machine was busy (all cores). */
export function machineBusy(): number {
  const [, user, nice, system, , , irq, softirq] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').split(/\s+/).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / TICKS;
}
