/**
 * The Studio's memory pages (docs/memory.md#in-the-studio): which resources memory holds something about,
 * and one resource's working memory (every version: who wrote it, why, from which run), its threads and
 * its newest items, read from the journal's own database. Server-only.
 */
import 'server-only';
import type { MemoryItem, MemoryResource, MemoryThread, WorkingMemory } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { parseFilterText } from './runs';

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
  return { resource, versions, threads, items };
}
