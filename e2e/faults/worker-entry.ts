/**
 * `npm run worker` with its clock moved: GNL_FAULT_CLOCK_SKEW_MS shifts Date.now() and `new Date()` in
 * this process only (a machine whose clock is far off), then the real worker starts. Lease decisions
 * are the database's, so nothing about who holds what may change.
 */
const skew = Number(process.env.GNL_FAULT_CLOCK_SKEW_MS ?? '0');
if (!Number.isFinite(skew)) throw new TypeError(`GNL_FAULT_CLOCK_SKEW_MS must be a number of milliseconds (got "${process.env.GNL_FAULT_CLOCK_SKEW_MS}")`);
if (skew !== 0) {
  const RealDate = Date;
  class SkewedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + skew);
      else super(...(args as [string]));
    }
    static override now(): number {
      return RealDate.now() + skew;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
await import('@/lib/executor/worker-main');

export {};
