/**
 * MCP tools under durability (docs/tool-semantics.md#mcp-tools). durableMcpTools (durable-mcp-tools.ts)
 * takes a connected MCP client (the AI SDK's `@ai-sdk/mcp`, typed here by what is used, so the core
 * imports no MCP package) and a declaration per tool the server offers, and returns gnlTools whose
 * execute is one tools/call: the door (../tools/journaled-tool.ts) journals, keys and replays them like
 * any tool. An undeclared tool is refused (McpDeclarationError), never guessed read-only; an error result
 * is thrown as McpToolError. An entry for readers and for code outside lib/durable; the public surface is
 * lib/durable/index.ts.
 */
export { durableMcpTools, type DurableMcpToolsOptions, type McpCallResult, type McpClientLike, type McpToolDeclaration } from './durable-mcp-tools';
