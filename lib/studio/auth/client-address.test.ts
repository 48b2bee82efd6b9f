/**
 * The client's address as the Studio's server stamps it (scripts/client-address.mjs), through a real
 * http server and real requests: a client cannot choose its address by sending X-Forwarded-For or the
 * Studio's own header; behind a trusted proxy, only the entry that proxy appended counts.
 */
import { createServer, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ADDRESS_HEADER as SERVER_HEADER, clientAddress, stampClientAddress, trustProxyFromEnv } from '@/scripts/client-address.mjs';
import { CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_STAMPED_ENV, stampedClientAddress } from './client-address';

/** A server that stamps as studio-server.mjs does and answers with the headers the app would see. */
async function echoServer(trustProxy: boolean) {
  const server = createServer((req, res) => {
    stampClientAddress(req, { trustProxy });
    res.setHeader('content-type', 'application/json').end(JSON.stringify(req.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const seen = (headers: Record<string, string>) =>
    new Promise<IncomingHttpHeaders>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/sign-in', method: 'POST', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve(JSON.parse(body) as IncomingHttpHeaders));
      });
      req.on('error', reject).end();
    });
  return { seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('client address', () => {
  let direct: Awaited<ReturnType<typeof echoServer>>;
  let proxied: Awaited<ReturnType<typeof echoServer>>;
  beforeAll(async () => {
    direct = await echoServer(false);
    proxied = await echoServer(true);
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('the app reads the header the server writes', () => {
    expect(CLIENT_ADDRESS_HEADER).toBe(SERVER_HEADER);
  });

  it('reached directly, the address is the socket peer, whatever X-Forwarded-For or the Studio header the client sends', async () => {
    expect((await direct.seen({}))[CLIENT_ADDRESS_HEADER]).toBe('127.0.0.1');
    const forged = await direct.seen({ 'X-Forwarded-For': '198.51.100.7', [CLIENT_ADDRESS_HEADER]: '203.0.113.9' });
    expect(forged[CLIENT_ADDRESS_HEADER]).toBe('127.0.0.1');
  });

  it('behind a trusted proxy, the last X-Forwarded-For entry (the proxy’s) counts, not those the client put before it', async () => {
    expect((await proxied.seen({ 'X-Forwarded-For': '198.51.100.7, 192.0.2.44' }))[CLIENT_ADDRESS_HEADER]).toBe('192.0.2.44');
    expect((await proxied.seen({ 'X-Forwarded-For': '192.0.2.45' }))[CLIENT_ADDRESS_HEADER]).toBe('192.0.2.45');
    // No header from the proxy: the socket peer (the proxy itself), never a forged Studio header.
    expect((await proxied.seen({ [CLIENT_ADDRESS_HEADER]: '203.0.113.9' }))[CLIENT_ADDRESS_HEADER]).toBe('127.0.0.1');
  });

  it('reads repeated and empty headers sensibly, and GNL_STUDIO_TRUST_PROXY only as 1 or true', () => {
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor: ['198.51.100.7', '192.0.2.1 , '], trustProxy: true })).toBe('192.0.2.1');
    expect(clientAddress({ socketAddress: '10.0.0.1', forwardedFor: ' , ', trustProxy: true })).toBe('10.0.0.1');
    expect(clientAddress({ socketAddress: undefined, forwardedFor: undefined, trustProxy: false })).toBeUndefined();
    expect([trustProxyFromEnv({ GNL_STUDIO_TRUST_PROXY: '1' }), trustProxyFromEnv({ GNL_STUDIO_TRUST_PROXY: 'TRUE' })]).toEqual([true, true]);
    expect([trustProxyFromEnv({}), trustProxyFromEnv({ GNL_STUDIO_TRUST_PROXY: 'yes' }), trustProxyFromEnv({ GNL_STUDIO_TRUST_PROXY: '0' })]).toEqual([
      false,
      false,
      false,
    ]);
  });
});

it('the app reads the header only where the Studio’s server stamps requests: under a bare `next start` the client chose it', () => {
  const sent = new Headers({ [CLIENT_ADDRESS_HEADER]: '203.0.113.7' });
  expect(stampedClientAddress(sent, {})).toBeUndefined();
  expect(stampedClientAddress(sent, { [CLIENT_ADDRESS_STAMPED_ENV]: '1' })).toBe('203.0.113.7');
  expect(stampedClientAddress(new Headers(), { [CLIENT_ADDRESS_STAMPED_ENV]: '1' })).toBeUndefined();
});
