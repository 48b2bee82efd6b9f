/**
 * durableMcpTools: the tools of an MCP server (through the AI SDK's MCP client) as tools of a durable run.
 * Every tool the server offers must be declared: side effect or not (gnlTool's options), or left out. A
 * remote tool nobody declared is refused rather than guessed read-only, since that guess is how a
 * refund runs twice. Each tool is the client's own (description, schema, toModelOutput) with an execute
 * that asks the server once through `callTool`; runDurable puts it behind the door like any tool, so keys,
 * journaling, replays and the unknown-outcome rule are the door's (../tools/journaled-tool.ts).
 * An error result (`isError: true`) is thrown, so the journal records it as the call's error: for a read-only
 * tool like any throw; for a side effect it is an unknown outcome unless declared `errorResult: 'not-performed'`,
 * because the MCP SDK's servers turn any exception of a tool, even one after it acted, into such a result.
 */
import type { Tool, ToolExecutionOptions } from 'ai';
import { McpDeclarationError, McpToolError, ToolNotPerformedError } from '../errors';
import { type GnlToolOptions, gnlTool } from '../tools/gnl-tool';

type AnyTool = Tool<any, any>;

/** An MCP tool call's result, as the AI SDK's client returns it (CallToolResult). */
export interface McpCallResult {
  isError?: boolean;
  content?: unknown;
  [field: string]: unknown;
}

/** What durableMcpTools needs of an MCP client. `@ai-sdk/mcp`'s MCPClient has it; the core imports no MCP package. */
export interface McpClientLike {
  /** The server's tools as AI SDK tools (MCPClient.tools()). */
  tools(): Promise<Record<string, AnyTool>>;
  /** One tools/call to the server (MCPClient.callTool). */
  callTool(args: { name: string; arguments?: Record<string, unknown>; options?: { signal?: AbortSignal } }): Promise<McpCallResult>;
}

/** How one MCP tool runs under durability: gnlTool's options, with `sideEffect` said out loud. */
export type McpToolDeclaration = GnlToolOptions & {
  sideEffect: boolean;
  /**
   * What an error result of this side effect means. 'unknown' (default): it may have acted, so the
   * unknown-outcome rule decides (retrySafe, check, else a person). 'not-performed': the server answers
   * isError only when it did nothing (a refusal), so the error is final and the model sees it.
   */
  errorResult?: 'unknown' | 'not-performed';
};

export interface DurableMcpToolsOptions {
  /** A connected MCP client (`await createMCPClient(…)` of `@ai-sdk/mcp`). The caller closes it. */
  client: McpClientLike;
  /** Every tool the server offers, by name: its declaration, or 'omit' to leave it out of the run. */
  tools: Record<string, McpToolDeclaration | 'omit'>;
}

/**
 * The server's declared tools, ready for runDurable (or streamDurable, a workflow, an agent). Lists the
 * server's tools once; throws McpDeclarationError, naming them, when a tool is undeclared or a
 * declared one is not offered.
 */
export async function durableMcpTools(options: DurableMcpToolsOptions): Promise<Record<string, AnyTool>> {
  const { client, tools: declarations } = options;
  const offered = await client.tools();
  const undeclared = Object.keys(offered).filter((name) => !Object.hasOwn(declarations, name));
  const notOffered = Object.keys(declarations).filter((name) => !Object.hasOwn(offered, name));
  if (undeclared.length > 0 || notOffered.length > 0) throw new McpDeclarationError({ undeclared, notOffered });
  const tools: Record<string, AnyTool> = {};
  for (const [name, declaration] of Object.entries(declarations)) {
    if (declaration !== 'omit') tools[name] = mcpTool({ client, name, tool: offered[name] as AnyTool, declaration });
  }
  return tools;
}

function mcpTool(args: { client: McpClientLike; name: string; tool: AnyTool; declaration: McpToolDeclaration }): AnyTool {
  const { client, name, tool, declaration } = args;
  const { errorResult, ...options } = declaration;
  if (errorResult !== undefined && !declaration.sideEffect)
    throw new TypeError(`durableMcpTools: ${name}: errorResult applies to side effects; set sideEffect: true.`);
  const call = async (input: unknown, callOptions: ToolExecutionOptions<unknown>) => {
    const result = await client.callTool({ name, arguments: input as Record<string, unknown>, options: { signal: callOptions.abortSignal } });
    if (result.isError !== true) return result;
    const error = new McpToolError({ toolName: name, message: resultText(result), result });
    throw errorResult === 'not-performed' ? new ToolNotPerformedError(error.message, { cause: error }) : error;
  };
  try {
    // The client's tool with its body replaced: the same description, schema and toModelOutput.
    return gnlTool({ ...tool, execute: call } as AnyTool, options);
  } catch (error) {
    // gnlTool refused the options: say which tool's.
    throw new TypeError(`durableMcpTools: ${name}: ${(error as Error).message}`, { cause: error });
  }
}

/** The text parts of a result's content, joined; else the content as JSON. */
function resultText(result: McpCallResult): string {
  const parts = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
  const texts = parts.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []));
  return texts.length > 0 ? texts.join('\n') : JSON.stringify(result.content ?? null);
}
