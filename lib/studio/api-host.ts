/**
 * The Studio hosts the HTTP API (lib/server) on its own journal, registry and in-process executor: a
 * run a service starts executes here, as one started from the Studio does. One per process.
 */
import 'server-only';
import { registry } from '@/agents';
import { storageFromEnv } from '@/lib/durable/storage';
import { getExecutor } from '@/lib/executor';
import { type Api, createApi } from '@/lib/server';

const key = Symbol.for('gnl.studio.api');

export function studioApi(): Api {
  const global = globalThis as Record<symbol, Api | undefined>;
  global[key] ??= createApi({ storage: storageFromEnv(), registry, executor: getExecutor() });
  return global[key];
}
