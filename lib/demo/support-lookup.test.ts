import { afterAll, beforeAll, expect, it } from 'vitest';
import { toolLookup } from '@/lib/durable';
import { type OutsideService, startOutsideService } from './outside-service';
import { serviceClient } from './service-client';
import { supportTools } from './support-tools';

let service: OutsideService;
beforeAll(async () => {
  service = await startOutsideService();
});
afterAll(() => service.close());

it("the side effects' lookup reports what the outside service holds under a key, and settles nothing", async () => {
  const tools = supportTools({ serviceUrl: service.url, checks: false });
  const input = { customerId: 'c_42', orderId: 'o_17', amount: 40 };
  const performed = await serviceClient(service.url).perform('refunds', input, 'key-1');
  expect(performed.status).toBe('performed');
  const lookup = toolLookup(tools.issueRefund);
  if (!lookup) throw new Error('issueRefund declares no lookup');
  const ctx = { runId: 'r', toolCallId: 'c', input };
  const found = await lookup({ ...ctx, idempotencyKey: 'key-1' });
  expect(found).toMatchObject({ found: true, record: { orderId: 'o_17', amount: 40 }, output: { ok: true, refund: { orderId: 'o_17', amount: 40 } } });
  expect(await lookup({ ...ctx, idempotencyKey: 'key-2' })).toEqual({ found: false });
  // Asked twice, performed once: a lookup is a read.
  expect(service.stats().refunds.performed).toBe(1);
  expect(service.stats().keyLookups).toBe(2);
  expect(toolLookup(tools.sendEmail)).toBeTypeOf('function');
  expect(toolLookup(tools.lookupCustomer)).toBeUndefined();
});
