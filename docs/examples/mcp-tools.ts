/**
 * The MCP section's code (docs/tool-semantics.md#mcp-tools): an MCP server's tools in a durable run. The
 * guide's code block is the #region part of this file (docs/examples/code-blocks.test.ts); type-checked
 * with the rest, never run here: lib/durable/mcp/durable-mcp-tools.test.ts runs the same calls against a
 * real MCP server on both journals.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { LanguageModel } from 'ai';
import { durableMcpTools, runDurable } from '@gnldev/durable';
import { storageFromEnv } from '@gnldev/durable/storage';

declare const model: LanguageModel;
const storage = storageFromEnv();

// #region run
const client = await createMCPClient({
  transport: new StdioMCPTransport({ command: 'node', args: ['refund-server.js'] }),
});
try {
  const tools = await durableMcpTools({
    client,
    tools: {
      send_refund: { sideEffect: true, errorResult: 'not-performed' }, // its errors are refusals
      lookup_order: { sideEffect: false },
      delete_customer: 'omit', // offered by the server, never handed to the model
    },
  });
  await runDurable({
    runId: 'ticket:8812',
    journal: storage.runs,
    model,
    tools,
    prompt: 'Refund order o_17',
  });
} finally {
  await client.close();
}
// #endregion
