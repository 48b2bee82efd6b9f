/**
 * The outside service of the MCP suites, as the tests see it: a real MCP server process
 * (tests/support/mcp-server.ts, the MCP SDK on its stdio transport) that keeps its own ledger
 * (mcp-ledger.ts), and the AI SDK's MCP client that starts it. The tests judge by the ledger, never by the agent's
 * journal. The crash agent (e2e/crash) connects the same way, so this file imports no test tooling.
 */
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { LEDGER_ENV } from './mcp-ledger';

export { callsOf, type McpLedger, newLedger, readLedger } from './mcp-ledger';

/**
 * Starts a server process on `ledger` and connects the AI SDK's MCP client to it over stdio.
 * `serverArgs`: node's arguments to run tests/support/mcp-server.ts (childArgs gives them in a suite).
 * Closing the client ends the process.
 */
export function connectMcpServer(args: { serverArgs: string[]; ledger: string }): Promise<MCPClient> {
  return createMCPClient({
    transport: new StdioMCPTransport({ command: process.execPath, args: args.serverArgs, env: { [LEDGER_ENV]: args.ledger }, stderr: 'inherit' }),
  });
}
