/**
 * The outside service's store: customers (read-only), and the tickets, refunds and emails performed,
 * with the counters by request and by idempotency key. No HTTP here (outside-service.ts serves it).
 * A key's first request performs; a repeat gets the first result; a repeat with another body is refused.
 */
import { z } from 'zod';

export interface Order {
  orderId: string;
  total: number;
  currency: string;
}

export interface Customer {
  customerId: string;
  name: string;
  email: string;
  orders: Order[];
}

export interface Ticket {
  ticketId: string;
  customerId: string;
  subject: string;
  message: string;
  createdAt: string;
}

export interface Refund {
  refundId: string;
  customerId: string;
  orderId: string;
  amount: number;
  currency: string;
  ticketId?: string;
  createdAt: string;
}

export interface Email {
  emailId: string;
  to: string;
  subject: string;
  body: string;
  ticketId?: string;
  sentAt: string;
}

export type OperationKind = 'tickets' | 'refunds' | 'emails';
export const OPERATION_KINDS: readonly OperationKind[] = ['tickets', 'refunds', 'emails'];

export interface OperationStats {
  /** POST requests received, repeats and refusals included. */
  requests: number;
  /** Operations really performed (tickets created, refunds issued, emails sent): the number "at most once" is judged by. */
  performed: number;
  /** Requests answered with the stored result of an earlier request under the same key. */
  deduplicated: number;
  /** Requests refused: invalid body, a key reused with another body, a refund the store does not allow. */
  refused: number;
  /** Requests that came without an Idempotency-Key (each one performs). */
  withoutKey: number;
  /** Per idempotency key: requests received and operations performed (0 or 1). */
  byKey: Record<string, { requests: number; performed: number }>;
}

export interface ServiceStats {
  tickets: OperationStats;
  refunds: OperationStats;
  emails: OperationStats;
  /** GET /customers/:id served. */
  customerLookups: number;
  /** GET /<kind>/by-key/:key served (what checks ask). */
  keyLookups: number;
}

export type RecordOf<K extends OperationKind> = K extends 'tickets' ? Ticket : K extends 'refunds' ? Refund : Email;

/** The customers the demo knows: c_42 (order o_17, 40 EUR; o_18, 120 EUR) and c_7 (order o_21, 15 EUR). */
export const DEMO_CUSTOMERS: readonly Customer[] = [
  {
    customerId: 'c_42',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    orders: [
      { orderId: 'o_17', total: 40, currency: 'EUR' },
      { orderId: 'o_18', total: 120, currency: 'EUR' },
    ],
  },
  { customerId: 'c_7', name: 'Grace Hopper', email: 'grace@example.com', orders: [{ orderId: 'o_21', total: 15, currency: 'EUR' }] },
];

export const ticketRequestSchema = z.strictObject({ customerId: z.string().min(1), subject: z.string().min(1), message: z.string() });
export const refundRequestSchema = z.strictObject({
  customerId: z.string().min(1),
  orderId: z.string().min(1),
  amount: z.number().positive(),
  ticketId: z.string().optional(),
});
export const emailRequestSchema = z.strictObject({ to: z.string().min(3), subject: z.string().min(1), body: z.string(), ticketId: z.string().optional() });

export type Answer = { status: number; body: unknown };

/** The store and its counters, without HTTP. */
/** The store as its file holds it (Store.snapshot). */
export interface StoreSnapshot {
  v: 1;
  records: { tickets: Ticket[]; refunds: Refund[]; emails: Email[] };
  stats: ServiceStats;
  byKey: Record<OperationKind, Record<string, { request: string; result: unknown }>>;
}

const operationStatsSchema = z.object({
  requests: z.number(),
  performed: z.number(),
  deduplicated: z.number(),
  refused: z.number(),
  withoutKey: z.number(),
  byKey: z.record(z.string(), z.object({ requests: z.number(), performed: z.number() })),
});
const keyedSchema = z.record(z.string(), z.object({ request: z.string(), result: z.unknown() }));
const storeSnapshotSchema = z.object({
  v: z.literal(1),
  records: z.object({ tickets: z.array(z.unknown()), refunds: z.array(z.unknown()), emails: z.array(z.unknown()) }),
  stats: z.object({
    tickets: operationStatsSchema,
    refunds: operationStatsSchema,
    emails: operationStatsSchema,
    customerLookups: z.number(),
    keyLookups: z.number(),
  }),
  byKey: z.object({ tickets: keyedSchema, refunds: keyedSchema, emails: keyedSchema }),
});

export class Store {
  readonly customers: Map<string, Customer>;
  readonly records: { tickets: Ticket[]; refunds: Refund[]; emails: Email[] } = { tickets: [], refunds: [], emails: [] };
  readonly stats: ServiceStats = {
    tickets: emptyStats(),
    refunds: emptyStats(),
    emails: emptyStats(),
    customerLookups: 0,
    keyLookups: 0,
  };
  /** Per kind: idempotency key → the request body it was first used with, and the result. */
  private byKey: Record<OperationKind, Map<string, { request: string; result: unknown }>> = {
    tickets: new Map(),
    refunds: new Map(),
    emails: new Map(),
  };

  constructor(customers: readonly Customer[]) {
    this.customers = new Map(customers.map((c) => [c.customerId, structuredClone(c)]));
  }

  /** Everything it performed and counted, as JSON (the service's file: it survives a restart, as a real service's database does). */
  snapshot(): StoreSnapshot {
    const byKey = Object.fromEntries(Object.entries(this.byKey).map(([kind, map]) => [kind, Object.fromEntries(map)])) as StoreSnapshot['byKey'];
    return { v: 1, records: this.records, stats: this.stats, byKey };
  }

  /** Takes back what `snapshot` wrote; a file of another shape is refused (never half-read). */
  restore(snapshot: unknown): void {
    const parsed = storeSnapshotSchema.safeParse(snapshot);
    if (!parsed.success) throw new Error(`not a snapshot of the demo service's store: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
    const { records, stats, byKey } = parsed.data as StoreSnapshot;
    for (const kind of ['tickets', 'refunds', 'emails'] as const) {
      this.records[kind].splice(0, Infinity, ...(records[kind] as never[]));
      this.stats[kind] = stats[kind];
      this.byKey[kind] = new Map(Object.entries(byKey[kind]));
    }
    this.stats.customerLookups = stats.customerLookups;
    this.stats.keyLookups = stats.keyLookups;
  }

  lookupCustomer(customerId: string): Answer {
    this.stats.customerLookups += 1;
    const customer = this.customers.get(customerId);
    return customer ? { status: 200, body: customer } : { status: 404, body: { error: `unknown customer ${customerId}` } };
  }

  lookupKey(kind: OperationKind, key: string): Answer {
    this.stats.keyLookups += 1;
    const stored = this.byKey[kind].get(key);
    return stored ? { status: 200, body: stored.result } : { status: 404, body: { error: `no ${kind} operation under this key` } };
  }

  perform(kind: OperationKind, key: string | null, body: unknown): Answer & { replayed?: boolean } {
    const stats = this.stats[kind];
    stats.requests += 1;
    if (key === null) stats.withoutKey += 1;
    let perKey: { requests: number; performed: number } | undefined;
    if (key !== null) {
      perKey = stats.byKey[key] ?? { requests: 0, performed: 0 };
      stats.byKey[key] = perKey;
      perKey.requests += 1;
    }

    const request = JSON.stringify(body);
    const stored = key === null ? undefined : this.byKey[kind].get(key);
    if (stored) {
      if (stored.request !== request) {
        stats.refused += 1;
        return { status: 422, body: { refused: 'this Idempotency-Key was used with a different request' } };
      }
      stats.deduplicated += 1;
      return { status: 200, body: stored.result, replayed: true };
    }
    const outcome = this.create(kind, body);
    if ('refused' in outcome) {
      stats.refused += 1;
      return { status: 422, body: outcome };
    }
    stats.performed += 1;
    if (perKey) perKey.performed += 1;
    if (key !== null) this.byKey[kind].set(key, { request, result: outcome.result });
    return { status: 201, body: outcome.result };
  }

  private create(kind: OperationKind, body: unknown): { result: unknown } | { refused: string } {
    const now = new Date().toISOString();
    if (kind === 'tickets') {
      const parsed = ticketRequestSchema.safeParse(body);
      if (!parsed.success) return { refused: z.prettifyError(parsed.error) };
      const ticket: Ticket = { ticketId: `tk_${this.records.tickets.length + 1}`, ...parsed.data, createdAt: now };
      this.records.tickets.push(ticket);
      return { result: ticket };
    }
    if (kind === 'refunds') {
      const parsed = refundRequestSchema.safeParse(body);
      if (!parsed.success) return { refused: z.prettifyError(parsed.error) };
      const { customerId, orderId, amount, ticketId } = parsed.data;
      const order = this.customers.get(customerId)?.orders.find((o) => o.orderId === orderId);
      if (!order) return { refused: `order ${orderId} is not an order of customer ${customerId}` };
      if (amount > order.total) return { refused: `${amount} is more than the order total of ${order.total} ${order.currency}` };
      const refund: Refund = {
        refundId: `rf_${this.records.refunds.length + 1}`,
        customerId,
        orderId,
        amount,
        currency: order.currency,
        ...(ticketId ? { ticketId } : {}),
        createdAt: now,
      };
      this.records.refunds.push(refund);
      return { result: refund };
    }
    const parsed = emailRequestSchema.safeParse(body);
    if (!parsed.success) return { refused: z.prettifyError(parsed.error) };
    const email: Email = { emailId: `em_${this.records.emails.length + 1}`, ...parsed.data, sentAt: now };
    this.records.emails.push(email);
    return { result: email };
  }
}

function emptyStats(): OperationStats {
  return { requests: 0, performed: 0, deduplicated: 0, refused: 0, withoutKey: 0, byKey: {} };
}
