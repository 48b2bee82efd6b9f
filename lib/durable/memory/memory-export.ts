/**
 * A resource's memory as JSON lines (`gnl memory export`, docs/memory.md#export): what it holds about a
 * customer, for a person's request for their data or a move to another system. One header line, then
 * every working memory version (oldest first), then every fact and message (oldest first). Embeddings are
 * left out: they are derived from the text by the embedding model and mean nothing without it.
 */
import { MemoryInputError } from '../errors';
import type { MemoryItem, MemoryStore, WorkingMemory } from './memory-store';

export const MEMORY_EXPORT_FORMAT = 'gnl-memory-export';

export interface MemoryExportHeader {
  format: typeof MEMORY_EXPORT_FORMAT;
  version: 1;
  resource: string;
  exportedAt: string;
  exportedBy: string;
  versions: number;
  items: number;
}

export type MemoryExportLine =
  | ({ type: 'header' } & MemoryExportHeader)
  | ({ type: 'working' } & Omit<WorkingMemory, 'resource'>)
  | ({ type: 'item' } & Omit<MemoryItem, 'resource'>);

/** The most items one export holds (a resource with more is refused, saying so). */
export const MAX_EXPORT_ITEMS = 1_000_000;

export async function exportMemory(args: { store: MemoryStore; resource: string; by: string; now?: Date }): Promise<MemoryExportLine[]> {
  const { store, resource } = args;
  const versions = (await store.workingHistory(resource)).reverse();
  const newestFirst = await store.items({ resource, limit: MAX_EXPORT_ITEMS + 1 });
  if (newestFirst.length > MAX_EXPORT_ITEMS)
    throw new MemoryInputError({
      what: `the memory of "${resource}" cannot be exported in one file`,
      problems: [`it holds more than ${MAX_EXPORT_ITEMS} items`],
    });
  const items = newestFirst.reverse();
  const header: MemoryExportLine = {
    type: 'header',
    format: MEMORY_EXPORT_FORMAT,
    version: 1,
    resource,
    exportedAt: (args.now ?? new Date()).toISOString(),
    exportedBy: args.by,
    versions: versions.length,
    items: items.length,
  };
  return [
    header,
    ...versions.map(({ resource: _r, ...version }) => ({ type: 'working' as const, ...version })),
    ...items.map(({ resource: _r, ...item }) => ({ type: 'item' as const, ...item })),
  ];
}

/** The lines as text: one JSON object per line. */
export function memoryExportText(lines: readonly MemoryExportLine[]): string {
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}
