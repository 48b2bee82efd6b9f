/**
 * A real MCP server for the MCP suites (lib/durable/mcp, e2e/crash): the MCP SDK's McpServer on its stdio
 * transport, started as a child process by the AI SDK's MCP client (mcp-service.ts). It plays an outside
 * service with its own ledger (the JSON file named by GNL_MCP_LEDGER), written before each answer:
 * - send_refund (a side effect): a refund of an order, counted; an amount over 100 is refused with an
 *   error result (isError), counted as a call and not as a refund;
 * - lookup_order (read-only): an order; an unknown order ('o_missing') is an error result;
 * - delete_customer: a tool the suites never declare (a durable tool set must refuse or omit it).
 * The process ends when its stdin closes (the client closed, or the process running the agent was killed).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { LEDGER_ENV, type McpLedger, readLedger, writeLedger } from './mcp-ledger';

const ledgerFile = process.env[LEDGER_ENV];
if (!ledgerFile) throw new Error(`mcp-server: ${LEDGER_ENV} is not set`);
const ledger = ledgerFile;

function record(change: (ledger: McpLedger) => void): McpLedger {
  const current = readLedger(ledger);
  change(current);
  writeLedger(ledger, current);
  return current;
}

record((l) => l.servers.push(process.pid));

const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }];

const server = new McpServer({ name: 'gnl-test-refunds', version: '1.0.0' });

server.registerTool(
  'send_refund',
  { description: 'Refund an order (changes the outside world).', inputSchema: { orderId: z.string(), amount: z.number() } },
  async ({ orderId, amount }) => {
    const after = record((l) => {
      l.calls.push({ pid: process.pid, tool: 'send_refund', orderId });
      if (amount <= 100) l.refunds[orderId] = (l.refunds[orderId] ?? 0) + 1;
    });
    if (amount > 100) return { isError: true, content: [{ type: 'text', text: `refused: ${amount} is over the refund limit of 100` }] };
    const result = { refundId: `r_${orderId}`, orderId, amount, execution: after.refunds[orderId] };
    return { content: text(result), structuredContent: result };
  },
);

server.registerTool(
  'lookup_order',
  { description: 'Look up an order (read-only).', inputSchema: { orderId: z.string() }, annotations: { readOnlyHint: true } },
  async ({ orderId }) => {
    record((l) => l.calls.push({ pid: process.pid, tool: 'lookup_order', orderId }));
    if (orderId === 'o_missing') return { isError: true, content: [{ type: 'text', text: `no order ${orderId}` }] };
    return { content: text({ orderId, total: 40, currency: 'EUR' }) };
  },
);

server.registerTool(
  'delete_customer',
  { description: 'Delete a customer and all their data.', inputSchema: { customerId: z.string() } },
  async ({ customerId }) => {
    record((l) => l.calls.push({ pid: process.pid, tool: 'delete_customer', orderId: customerId }));
    return { content: text({ deleted: customerId }) };
  },
);

process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
