/**
 * The demo service's webhook receiver (POST /webhooks, GET /webhooks): where GNL's notifications can be
 * sent in the demo and the E2E suite, counted by event id as a real receiver deduplicates them. With
 * `?fail=N` in the URL it answers 503 to the first N deliveries of each event, so retries can be watched.
 * It checks nothing of the signature (docs/notifications.md has a receiver that does): it is a counter.
 */
export interface WebhookReceipt {
  /** The notification's event id (its body's `id`); "?" for a body without one. */
  eventId: string;
  runId: string | undefined;
  status: string | undefined;
  /** Deliveries received for this event id, refused ones included. */
  deliveries: number;
  /** Deliveries answered 2xx. */
  accepted: number;
  signed: boolean;
}

export class WebhookInbox {
  private readonly byEvent = new Map<string, WebhookReceipt>();

  /** One delivery: its HTTP answer (503 while `failFirst` deliveries of the event are not yet refused). */
  receive(text: string, headers: { signature: string | undefined }, failFirst: number): { status: number; body: unknown } {
    // GNL's notification body (lib/executor/notifications/notification-body.ts): { id, type, run: { id, status, … }, … }.
    let body: { id?: unknown; run?: { id?: unknown; status?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return { status: 400, body: { error: 'the body must be JSON' } };
    }
    const eventId = typeof body.id === 'string' ? body.id : '?';
    const receipt = this.byEvent.get(eventId) ?? {
      eventId,
      runId: typeof body.run?.id === 'string' ? body.run.id : undefined,
      status: typeof body.run?.status === 'string' ? body.run.status : undefined,
      deliveries: 0,
      accepted: 0,
      signed: false,
    };
    receipt.deliveries += 1;
    receipt.signed = headers.signature !== undefined;
    this.byEvent.set(eventId, receipt);
    if (receipt.deliveries <= failFirst)
      return { status: 503, body: { error: `refusing delivery ${receipt.deliveries} of ${failFirst} on purpose (?fail=${failFirst})` } };
    receipt.accepted += 1;
    return { status: 200, body: { ok: true, duplicate: receipt.accepted > 1 } };
  }

  list(): WebhookReceipt[] {
    return [...this.byEvent.values()].map((r) => ({ ...r }));
  }
}
