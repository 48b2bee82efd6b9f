/**
 * Prometheus metrics (issue 18), with prom-client. Two kinds, as Prometheus expects them:
 *   - the fleet, read from the journal at each scrape (each read on the runs summary or an index, never a
 *     scan of the events): every process sharing the journal reports the same values;
 *   - this process's own counters, fed by its executor's events (`observe`): Prometheus sums them over
 *     processes.
 * Served by the Studio at /api/metrics (a session, or GNL_METRICS_TOKEN as a bearer token) and by
 * `npm run worker -- --health-port N` at GET /metrics.
 *
 *   gnl_runs{status}                        runs by status                                      (fleet)
 *   gnl_inbox_items                         undecided items waiting for a person                (fleet)
 *   gnl_inbox_oldest_wait_seconds           since the oldest run with an undecided item last changed (fleet)
 *   gnl_notifications_pending               webhook notifications not yet delivered             (fleet)
 *   gnl_notification_lag_seconds            age of the oldest of those (0: none)                (fleet)
 *   gnl_invocations_total{kind,outcome}     invocations this process finished                   (process)
 *   gnl_claims_total                        runs this process claimed from the queue            (process)
 *   gnl_lease_takeovers_total               claims that took a run over from a lapsed lease     (process)
 *   gnl_leases_lost_total                   runs this process lost its lease on mid-invocation  (process)
 *   gnl_webhook_deliveries_total{outcome}   webhook delivery attempts settled by this process   (process)
 *   gnl_executor_errors_total               errors the executor reported                        (process)
 * plus prom-client's default process metrics (gnl_process_…, gnl_nodejs_…).
 */
import { sql } from 'drizzle-orm';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ExecutorEvent } from '../executor';

/** What the metrics need of a storage: its database, by shape (Storage.database()). */
export interface MetricsStorage {
  database(): Promise<{ execute(statement: ReturnType<typeof sql>): PromiseLike<unknown> }>;
}

type Row = Record<string, unknown>;

async function rows(storage: MetricsStorage, statement: ReturnType<typeof sql>): Promise<Row[]> {
  const result = await (await storage.database()).execute(statement);
  // postgres.js answers the rows, PGlite an object holding them.
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

export class GnlMetrics {
  readonly registry = new Registry();
  private readonly invocations: Counter<'kind' | 'outcome'>;
  private readonly claims: Counter;
  private readonly takeovers: Counter;
  private readonly leasesLost: Counter;
  private readonly deliveries: Counter<'outcome'>;
  private readonly errors: Counter;

  /** `defaults`: prom-client's process metrics too (default true). */
  constructor(storage: MetricsStorage, options: { defaults?: boolean } = {}) {
    const registers = [this.registry];
    if (options.defaults !== false) collectDefaultMetrics({ register: this.registry, prefix: 'gnl_' });
    const read = (statement: ReturnType<typeof sql>) => rows(storage, statement);

    new Gauge({
      name: 'gnl_runs',
      help: 'Runs by status.',
      labelNames: ['status'],
      registers,
      async collect() {
        this.reset();
        for (const row of await read(sql`select status, count(*)::int as n from gnl.runs group by status`))
          this.set({ status: String(row.status) }, Number(row.n));
      },
    });
    // Each pair is one read, done by the gauge registered first (prom-client collects in order of registration).
    const oldestWait = new Gauge({
      name: 'gnl_inbox_oldest_wait_seconds',
      help: 'Seconds since the oldest run waiting with an undecided item last changed (0: nothing waits).',
      registers: [],
    });
    new Gauge({
      name: 'gnl_inbox_items',
      help: 'Undecided items waiting for a person.',
      registers,
      async collect() {
        const [row] = await read(sql`
          select count(*)::int as n, coalesce(extract(epoch from now() - min(r.updated_at)), 0)::float8 as oldest
          from gnl.runs r cross join lateral jsonb_array_elements(r.pending) p
          where r.status in ('waiting-approval', 'waiting-tool-result', 'blocked') and not (p.value ? 'decision')`);
        this.set(Number(row?.n ?? 0));
        oldestWait.set(Number(row?.oldest ?? 0));
      },
    });
    this.registry.registerMetric(oldestWait);
    const lag = new Gauge({ name: 'gnl_notification_lag_seconds', help: 'Age of the oldest webhook notification not yet delivered (0: none).', registers: [] });
    new Gauge({
      name: 'gnl_notifications_pending',
      help: 'Webhook notifications not yet delivered.',
      registers,
      async collect() {
        // notifications_due_idx holds exactly the pending rows.
        const [row] = await read(
          sql`select count(*)::int as n, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as lag from gnl.notifications where delivery = 'pending'`,
        );
        this.set(Number(row?.n ?? 0));
        lag.set(Number(row?.lag ?? 0));
      },
    });
    this.registry.registerMetric(lag);

    this.invocations = new Counter({
      name: 'gnl_invocations_total',
      help: 'Invocations this process finished, by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.claims = new Counter({ name: 'gnl_claims_total', help: 'Runs this process claimed from the queue.', registers });
    this.takeovers = new Counter({ name: 'gnl_lease_takeovers_total', help: 'Claims that took a run over from an executor whose lease lapsed.', registers });
    this.leasesLost = new Counter({ name: 'gnl_leases_lost_total', help: 'Runs whose lease this process lost during an invocation.', registers });
    this.deliveries = new Counter({
      name: 'gnl_webhook_deliveries_total',
      help: 'Webhook delivery attempts this process settled, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.errors = new Counter({ name: 'gnl_executor_errors_total', help: 'Errors this process’s executor reported.', registers });
  }

  /** Feed it the executor's events (ExecutorOptions.onEvent). */
  readonly observe = (event: ExecutorEvent): void => {
    if (event.type === 'finished') this.invocations.inc({ kind: event.kind, outcome: event.outcome });
    else if (event.type === 'claimed') this.claims.inc();
    else if (event.type === 'took-over') this.takeovers.inc();
    else if (event.type === 'lease-lost') this.leasesLost.inc();
    else if (event.type === 'notification') this.deliveries.inc({ outcome: event.outcome });
    else if (event.type === 'error') this.errors.inc();
  };

  /** The exposition text and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
