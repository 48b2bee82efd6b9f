/**
 * The Studio's memory pages (docs/memory.md#in-the-studio): which resources memory holds something about,
 * and one resource's working memory (every version: who wrote it, why, from which run), its threads and
 * its newest items, read from the journal's own database, secrets redacted as on every page. Server-only.
 */
import 'server-only';
import type { MemoryItem, MemoryResource, MemoryThread, WorkingMemory } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { parseFilterText } from './runs';
import { jsonSafe } from './wire';

export interface ResourceMemory {
  resource: string;
  /** Every working memory version, newest first (the first is what an agent reads). */
  versions: WorkingMemory[];
  threads: MemoryThread[];
  /** The newest items (facts and messages), newest first. */
  items: MemoryItem[];
}

/** At most this many resources, threads and items on a page. */
export const MEMORY_PAGE_LIMIT = 100;

export async function loadMemoryResources(query?: string): Promise<MemoryResource[]> {
  const contains = parseFilterText(query);
  return storageFromEnv().memory.resources({ limit: MEMORY_PAGE_LIMIT, ...(contains ? { contains } : {}) });
}

/** A resource's memory; undefined when memory holds nothing about it. */
export async function loadResourceMemory(resource: string): Promise<ResourceMemory | undefined> {
  const memory = storageFromEnv().memory;
  const [versions, threads, items] = await Promise.all([
    memory.workingHistory(resource),
    memory.threads({ resource, limit: MEMORY_PAGE_LIMIT }),
    memory.items({ resource, limit: MEMORY_PAGE_LIMIT }),
  ]);
  if (versions.length === 0 && threads.length === 0 && items.length === 0) return undefined;
  // As every value the browser gets (wire.ts): a secret field's value and a credential-looking string are
  // redacted, for every role. An edit keeps a redacted value as it is stored (memory-actions.ts).
  return { resource, versions: versions.map(safeVersion), threads, items: items.map(safeItem) };
}

function safeVersion(version: WorkingMemory): WorkingMemory {
  return { ...version, value: jsonSafe(version.value), reason: jsonSafe(version.reason) };
}

function safeItem(item: MemoryItem): MemoryItem {
  return { ...item, text: jsonSafe(item.text) };
}
