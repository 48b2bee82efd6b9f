/**
 * What the crash suite and its child process (crash-agent.ts) agree on: the environment variables that
 * configure a child, the crash points, and the one JSON line a child prints when it is not killed.
 */

/** Which journal the child runs on; 'none' is the seed's control group (plain generateText, no GNL). */
export type JournalKind = 'pglite' | 'postgres' | 'none';

/** How the refund tool is wrapped: gnlTool options, or no GNL at all for the control group. */
export type Scenario = 'plain' | 'retrySafe' | 'check' | 'approval' | 'control';

/**
 * Where the child SIGKILLs itself:
 * - 'none': it does not;
 * - `after:<event type>[:<selector>]`: right after an append containing that event committed (the
 *   selector is the step number for model-step, the tool name for tool events);
 * - 'announce-appends': it does not; it announces each append on stderr, for a killer outside;
 * - 'in-refund-after-response': inside the refund tool's execute, after the refund service answered and
 *   before the result could be recorded.
 */
export type CrashPoint =
  | 'none'
  | 'in-refund-after-response'
  | 'in-memory-append-after-write'
  | 'announce-appends'
  | `after:${string}`
  | `mid-stream-${'before' | 'after'}-call:${number}`;

/**
 * How the child runs the agent: 'generate' (runDurable, the default) or 'stream' (streamDurable with a
 * streaming model). In 'stream' mode `mid-stream-before-call:<step>` kills the child inside that step's
 * model stream once the call's input has begun streaming, and `mid-stream-after-call:<step>` once the
 * call itself has come out of the model, in both cases before the step's finish. 'memory': runDurable
 * with the memory option (resource and thread named by the runId: memoryOf), its store the journal's; each
 * real model call logs the user and system texts it was given (`seen`), and `in-memory-append-after-write`
 * kills the child inside the turn's append, after the store wrote it and before the journal recorded it.
 * 'recall': runDurable with memoryTools' `recall` (the resource named by the runId); the model calls
 * recall first (RECALL_QUERY), then goes on as in 'generate'; each real model call logs the recall
 * results it was given (`seen`), and each embedding call the texts it embedded (`embedded`).
 * 'mcp': runDurable with the tools of a real MCP server (tests/support/mcp-server.ts, started by the
 * AI SDK's MCP client on stdio, on the ledger file GNL_CRASH_MCP_LEDGER) through durableMcpTools:
 * lookup_order (read-only) then send_refund (a side effect; scenario 'plain' only), no HTTP service;
 * `in-refund-after-response` kills the child after the MCP server answered send_refund.
 */
export type AgentMode = 'generate' | 'stream' | 'memory' | 'recall' | 'mcp';

/** With 'announce-appends' the child does not kill itself: it writes this line (and the event types) to stderr as each append begins. */
export const APPEND_BEGIN = '[append-begin]';

export const ENV = {
  journal: 'GNL_CRASH_JOURNAL',
  dataDir: 'GNL_CRASH_DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  runId: 'GNL_CRASH_RUN_ID',
  scenario: 'GNL_CRASH_SCENARIO',
  crashPoint: 'GNL_CRASH_POINT',
  serviceUrl: 'GNL_CRASH_SERVICE_URL',
  modelLog: 'GNL_CRASH_MODEL_LOG',
  mode: 'GNL_CRASH_MODE',
  /** 'mcp' mode: node's arguments to run the MCP server (JSON), and its ledger file. */
  mcpServer: 'GNL_CRASH_MCP_SERVER',
  mcpLedger: 'GNL_CRASH_MCP_LEDGER',
} as const;

/**
 * The model log: one `{ pid, step }` line per REAL model call, appended by the child before the model
 * answers, and one `{ pid, recorded: step }` line right after a model-step append committed (missing
 * when the kill came first: it can hide a repeat, never invent one).
 */
export type ModelLogLine = { pid: number; step: number; seen?: string[] } | { pid: number; recorded: number } | { pid: number; embedded: string[] };

/** What the model asks `recall` for in 'recall' mode. */
export const RECALL_QUERY = 'refunds for order o_17';

/** The memory a run of `mode: 'memory'` is given: the runId's own resource and thread. */
export function memoryOf(runId: string): { resource: string; thread: string } {
  return { resource: `customer:${runId}`, thread: `thread:${runId}` };
}

export interface ErrorFields {
  name: string;
  message: string;
  [field: string]: unknown;
}

/** The one JSON line a child prints on stdout when it ends on its own (it then exits 0). */
export type AgentOutcome =
  | { outcome: 'completed'; pid: number; text: string; replayedSteps?: number }
  | { outcome: 'waiting-approval'; pid: number; pending: { toolCallId: string; toolName: string; input: unknown; requestedAt: string }[] }
  | { outcome: 'blocked'; pid: number; error: ErrorFields & { runId: string; toolCallId: string; toolName: string; input: unknown; idempotencyKey: string } }
  | { outcome: 'busy'; pid: number; error: ErrorFields & { holder?: { pid: number; host: string } } }
  | { outcome: 'error'; pid: number; error: ErrorFields };

export const PROMPT = 'Order o_17 arrived broken. Refund it.';
export const ORDER_ID = 'o_17';
export const FINAL_TEXT = 'Refunded 40 EUR for order o_17.';
