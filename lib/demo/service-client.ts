/**
 * How the demo's tools talk to the outside service, over HTTP. A definite answer from the service is
 * a value (performed, repeated, refused, not found); only a failure to get one (network, 5xx) throws,
 * because only then is the outcome unknown.
 */
import type { Customer, Email, OperationKind, Refund, ServiceStats, Ticket } from './service-store';

export type OperationResult<T> =
  /** Done now (201), or done by an earlier request under the same key (200, `Idempotent-Replayed`). */
  | { status: 'performed'; result: T; replayed: boolean }
  /** The service refused the request (422): nothing was done. */
  | { status: 'refused'; reason: string };

/** What the service stores and answers for each kind of operation. */
export type ResultOf<K extends OperationKind> = K extends 'tickets' ? Ticket : K extends 'refunds' ? Refund : Email;

export interface ServiceClient {
  readonly url: string;
  lookupCustomer(customerId: string): Promise<Customer | undefined>;
  /** POSTs under `idempotencyKey` (sent as the Idempotency-Key header). */
  perform<K extends OperationKind>(kind: K, body: object, idempotencyKey: string | undefined): Promise<OperationResult<ResultOf<K>>>;
  /** The result stored under a key, or undefined when the service has performed nothing under it. */
  findByKey<K extends OperationKind>(kind: K, idempotencyKey: string): Promise<ResultOf<K> | undefined>;
  stats(): Promise<ServiceStats>;
}

export function serviceClient(url: string): ServiceClient {
  const base = url.replace(/\/+$/, '');
  const call = async (method: 'GET' | 'POST', path: string, init: { body?: object; idempotencyKey?: string } = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.idempotencyKey ? { 'Idempotency-Key': init.idempotencyKey } : {}),
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });
    const body = (await res.json().catch(() => undefined)) as unknown;
    return { res, body };
  };
  const failed = (what: string, res: Response, body: unknown) =>
    new Error(`outside service at ${base}: ${what} answered HTTP ${res.status}${body ? ` ${JSON.stringify(body)}` : ''}`);

  return {
    url: base,
    async lookupCustomer(customerId) {
      const { res, body } = await call('GET', `/customers/${encodeURIComponent(customerId)}`);
      if (res.status === 404) return undefined;
      if (!res.ok) throw failed(`customer lookup ${customerId}`, res, body);
      return body as Customer;
    },
    async perform(kind, payload, idempotencyKey) {
      const { res, body } = await call('POST', `/${kind}`, { body: payload, ...(idempotencyKey ? { idempotencyKey } : {}) });
      if (res.status === 422) return { status: 'refused', reason: String((body as { refused?: unknown })?.refused ?? 'refused') };
      if (res.status !== 200 && res.status !== 201) throw failed(`POST /${kind}`, res, body);
      return { status: 'performed', result: body as never, replayed: res.headers.get('idempotent-replayed') === 'true' };
    },
    async findByKey(kind, idempotencyKey) {
      const { res, body } = await call('GET', `/${kind}/by-key/${encodeURIComponent(idempotencyKey)}`);
      if (res.status === 404) return undefined;
      if (!res.ok) throw failed(`GET /${kind}/by-key`, res, body);
      return body as never;
    },
    async stats() {
      const { res, body } = await call('GET', '/stats');
      if (!res.ok) throw failed('GET /stats', res, body);
      return body as ServiceStats;
    },
  };
}
