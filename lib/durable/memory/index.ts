/**
 * Memory (docs/memory.md): what agents remember across runs, by resource and thread, on the journal's own
 * database. memory-store.ts is the port (storage implements it: lib/durable/storage/memory-store.ts);
 * memory-tools.ts gives an agent recall, remember and its working memory, each through the one door.
 */
export {
  type MemoryItem,
  type MemoryResource,
  type MemoryStore,
  type MemoryThread,
  type RecalledItem,
  unitVector,
  type WorkingMemory,
  type WorkingWrite,
} from './memory-store';
export { memoryTools, type MemoryToolsOptions } from './memory-tools';
export { type RunMemory, APPEND_TURN_TOOL, readRunMemory } from './run-memory';
export { runMemoryView, type RunMemoryView, type RecalledView } from './recorded-memory';
export { exportMemory, memoryExportText, MEMORY_EXPORT_FORMAT, type MemoryExportHeader, type MemoryExportLine } from './memory-export';
