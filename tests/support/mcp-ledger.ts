/**
 * The ledger of the MCP suites' outside service (mcp-server.ts): a JSON file the server writes before it
 * answers each call, and the tests read. Apart from mcp-service.ts so the server's bundle loads no client.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The environment variable naming the ledger file of the server process. */
export const LEDGER_ENV = 'GNL_MCP_LEDGER';

/** What the MCP server recorded, written before it answers each call. */
export interface McpLedger {
  /** The pid of every server process that started on this ledger, in order. */
  servers: number[];
  /** Every tools/call the server received, by the process that served it. */
  calls: { pid: number; tool: string; orderId: string }[];
  /** Refunds the server really made, by order. */
  refunds: Record<string, number>;
}

/** A new, empty ledger file. */
export function newLedger(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-mcp-')), 'ledger.json');
  writeLedger(file, { servers: [], calls: [], refunds: {} });
  return file;
}

export function readLedger(file: string): McpLedger {
  return JSON.parse(readFileSync(file, 'utf8')) as McpLedger;
}

export function writeLedger(file: string, ledger: McpLedger): void {
  writeFileSync(file, JSON.stringify(ledger));
}

/** Calls of `tool` the server received for `orderId`. */
export function callsOf(ledger: McpLedger, tool: string, orderId: string): McpLedger['calls'] {
  return ledger.calls.filter((call) => call.tool === tool && call.orderId === orderId);
}
