import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OutsideService, serviceClient, startOutsideService } from './index';

describe('outside service', () => {
  let service: OutsideService;
  beforeEach(async () => {
    service = await startOutsideService();
  });
  afterEach(() => service.close());

  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(body),
    });
  const refund = { customerId: 'c_42', orderId: 'o_17', amount: 40 };

  it('performs the first request under a key (201) and answers a repeat with the first result (200, Idempotent-Replayed), counting both', async () => {
    const first = await post('/refunds', refund, 'k1');
    const repeat = await post('/refunds', refund, 'k1');
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(200);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(await repeat.json()).toEqual(await first.json());
    expect(service.stats().refunds).toEqual({
      requests: 2,
      performed: 1,
      deduplicated: 1,
      refused: 0,
      withoutKey: 0,
      byKey: { k1: { requests: 2, performed: 1 } },
    });
    expect(service.records('refunds')).toHaveLength(1);
  });

  it('a key reused with another body is refused; a request without a key always performs', async () => {
    await post('/emails', { to: 'a@example.com', subject: 's', body: 'b' }, 'k2');
    expect((await post('/emails', { to: 'a@example.com', subject: 'other', body: 'b' }, 'k2')).status).toBe(422);
    await post('/emails', { to: 'a@example.com', subject: 's', body: 'b' });
    await post('/emails', { to: 'a@example.com', subject: 's', body: 'b' });
    expect(service.stats().emails).toMatchObject({ requests: 4, performed: 3, refused: 1, withoutKey: 2, byKey: { k2: { requests: 2, performed: 1 } } });
  });

  it('refuses a refund of an order that is not the customer’s or above its total, performing nothing', async () => {
    expect(await (await post('/refunds', { ...refund, amount: 41 }, 'k3')).json()).toEqual({ refused: '41 is more than the order total of 40 EUR' });
    expect((await post('/refunds', { ...refund, orderId: 'o_21' }, 'k4')).status).toBe(422);
    expect((await post('/refunds', { customerId: 'c_42' }, 'k5')).status).toBe(422);
    expect(service.stats().refunds).toMatchObject({ requests: 3, performed: 0, refused: 3 });
  });

  it('answers by key what a check asks, and looks customers up', async () => {
    const client = serviceClient(service.url);
    expect(await client.findByKey('tickets', 'nope')).toBeUndefined();
    const made = await client.perform('tickets', { customerId: 'c_42', subject: 'Hi', message: 'Hello' }, 'k6');
    expect(made).toMatchObject({ status: 'performed', replayed: false, result: { ticketId: 'tk_1' } });
    expect(await client.findByKey('tickets', 'k6')).toEqual((made as { result: unknown }).result);
    expect(await client.perform('tickets', { customerId: 'c_42', subject: 'Hi', message: 'Hello' }, 'k6')).toMatchObject({ replayed: true });
    expect(await client.lookupCustomer('c_42')).toMatchObject({ name: 'Ada Lovelace', orders: [{ orderId: 'o_17' }, { orderId: 'o_18' }] });
    expect(await client.lookupCustomer('c_0')).toBeUndefined();
    expect(await client.stats()).toMatchObject({ customerLookups: 2, keyLookups: 2, tickets: { requests: 2, performed: 1 } });
  });

  it('receives webhooks by event id: ?fail=N refuses each event’s first N deliveries with 503, then accepts; a repeat is marked duplicate', async () => {
    const body = { id: 'run:r1:7', type: 'run.waiting', run: { id: 'r1', status: 'waiting-approval', seq: 7 } };
    const send = () => fetch(`${service.url}/webhooks?fail=1`, { method: 'POST', headers: { 'GNL-Signature': 't=1,v1=ab' }, body: JSON.stringify(body) });
    expect((await send()).status).toBe(503);
    const accepted = await send();
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ ok: true, duplicate: false });
    expect(await (await send()).json()).toEqual({ ok: true, duplicate: true });
    const received = await (await fetch(`${service.url}/webhooks`)).json();
    expect(received).toEqual([{ eventId: 'run:r1:7', runId: 'r1', status: 'waiting-approval', deliveries: 3, accepted: 2, signed: true }]);
    expect((await fetch(`${service.url}/webhooks`, { method: 'POST', body: 'not json' })).status).toBe(400);
  });

  it('a service that is not there is an error, not an answer', async () => {
    const url = service.url;
    await service.close();
    await expect(serviceClient(url).perform('emails', { to: 'a@b.c', subject: 's', body: 'b' }, 'k')).rejects.toThrow();
    service = await startOutsideService();
  });
});

describe('outside service with a store file', () => {
  it('keeps what it performed across a restart: the counters, the records, and a repeat under a key answered with the first result', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gnl-demo-store-'));
    const storeFile = path.join(dir, 'demo-service.json');
    try {
      const first = await startOutsideService({ storeFile });
      const refund = { customerId: 'c_42', orderId: 'o_17', amount: 40 };
      const send = (url: string) =>
        fetch(`${url}/refunds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Idempotency-Key': 'k-persist' },
          body: JSON.stringify(refund),
        });
      const performed = await send(first.url);
      expect(performed.status).toBe(201);
      await first.close();

      const again = await startOutsideService({ storeFile });
      try {
        expect(again.stats().refunds).toMatchObject({ requests: 1, performed: 1, byKey: { 'k-persist': { requests: 1, performed: 1 } } });
        const repeat = await send(again.url);
        expect(repeat.status).toBe(200);
        expect(repeat.headers.get('idempotent-replayed')).toBe('true');
        expect(await repeat.json()).toEqual(await performed.json());
        expect(again.records('refunds')).toHaveLength(1);
        expect(again.stats().refunds).toMatchObject({ requests: 2, performed: 1, deduplicated: 1 });
      } finally {
        await again.close();
      }

      writeFileSync(storeFile, '{"v":1,"records":{}}');
      await expect(startOutsideService({ storeFile })).rejects.toThrow(/cannot be read back: not a snapshot of the demo service's store.*Move it away/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
