/**
 * The ports `npm run studio` chooses (scripts/studio-ports.mjs, issue 32), against real listeners: a taken
 * default moves on and says so, a taken explicit port is refused naming the variable and a free port, and
 * only the demo service itself is taken for the demo service.
 */
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startOutsideService } from '@/lib/demo';
import { choosePort, demoServiceAt, portFree } from '@/scripts/studio-ports.mjs';

const held: Server[] = [];
afterEach(async () => {
  for (const server of held.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function hold(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  held.push(server);
  return (server.address() as AddressInfo).port;
}

describe('the Studio’s ports', () => {
  it('moves a taken default to the next free port and says so; refuses a taken explicit one, naming the variable and a free port', async () => {
    const taken = await hold();
    expect(await portFree('127.0.0.1', taken)).toBe(false);
    const moved = await choosePort({ host: '127.0.0.1', explicit: undefined, fallback: taken, variable: 'PORT', what: 'the Studio' });
    expect(moved.port).toBeGreaterThan(taken);
    expect(moved.note).toBe(`port ${taken} is taken; the Studio uses ${moved.port} (set PORT to choose).`);
    const refused = await choosePort({ host: '127.0.0.1', explicit: String(taken), fallback: 3000, variable: 'PORT', what: 'the Studio' });
    expect(refused.error).toMatch(
      new RegExp(`^the Studio cannot listen on 127\\.0\\.0\\.1:${taken}: another process holds it\\. Stop it, or start with PORT=\\d+\\.$`),
    );
    const free = await choosePort({ host: '127.0.0.1', explicit: String(moved.port), fallback: 3000, variable: 'PORT', what: 'the Studio' });
    expect(free).toEqual({ port: moved.port });
  });

  it('tells the demo service itself from a foreign process on its port', async () => {
    const service = await startOutsideService();
    const foreign = createHttpServer((_req, res) => res.end(JSON.stringify({ ok: true })));
    foreign.listen(0, '127.0.0.1');
    await once(foreign, 'listening');
    try {
      expect(await demoServiceAt(service.port)).toBe('ours');
      expect(await demoServiceAt((foreign.address() as AddressInfo).port)).toBe('foreign');
    } finally {
      await service.close();
      await new Promise((resolve) => foreign.close(resolve));
    }
  });
});
