/**
 * gnlTool: marks what runDurable needs to know about a tool. Every tool handed to runDurable is
 * journaled; gnlTool only adds options. The options travel on the tool object under a registered
 * symbol, so a tool marked in one bundle is recognised in another.
 */
import type { Tool } from 'ai';
import type { ToolDeclaration } from '../projection/run-plan';
import type { ApprovalRule } from '../journal/events';
import { approvalRuleSchema } from '../journal/event-schemas';

declare module '@ai-sdk/provider-utils' {
  interface ToolExecutionOptions<CONTEXT> {
    /**
     * Set by runDurable: the same string on every attempt and every resume of this call (or, with
     * idempotency 'args', of these arguments). Pass it to the outside service, e.g. as an
     * Idempotency-Key header. Undefined when the tool runs outside runDurable.
     */
    idempotencyKey?: string;
  }
}

export interface CheckContext<INPUT = unknown> {
  runId: string;
  toolCallId: string;
  input: INPUT;
  idempotencyKey: string;
}

/**
 * What the outside system holds under a call's key, for a person deciding about it (the Studio shows it
 * and prefills "mark done" with `output`). Unlike `check`, it settles nothing on its own.
 */
export type LookupResult<OUTPUT = unknown> = { found: true; record: unknown; output?: OUTPUT } | { found: false };

export type CheckResult<OUTPUT = unknown> = { done: true; output: OUTPUT } | { done: false } | { done: 'unknown'; reason: string };

export interface GnlToolOptions<INPUT = unknown, OUTPUT = unknown> {
  /** The tool changes the outside world: it runs at most once, and an unknown outcome is never retried on a guess. Default false. */
  sideEffect?: boolean;
  /** 'call' (default): one operation per tool call. 'args': equal arguments mean the same work, so a re-planned call gets the first call's result. */
  idempotency?: 'call' | 'args';
  /** The outside system deduplicates by the idempotency key, so running again after an unknown outcome is safe. Default false. */
  retrySafe?: boolean;
  /** Asks the outside system whether the work under this key happened, after an unknown outcome. */
  check?: (ctx: CheckContext<INPUT>) => Promise<CheckResult<OUTPUT>>;
  /**
   * Looks up what the outside system recorded under the call's idempotency key, for a person settling an
   * unknown outcome (never called by the run itself). Default: none; the Studio then asks nobody.
   */
  lookup?: (ctx: CheckContext<INPUT>) => Promise<LookupResult<OUTPUT>>;
  /** Wait for a person before the call runs. A function decides per input. Default: the tool's own needsApproval, else false. */
  needsApproval?: boolean | ((input: INPUT) => boolean | PromiseLike<boolean>);
  /**
   * How long an approval question stays open, in milliseconds. Past it, the next resume treats the call
   * as rejected with the reason "expired" (recorded like any decision), and approve() is refused.
   * Default: no expiry.
   */
  approvalExpiresInMs?: number;
  /**
   * Who may approve a call (with needsApproval), journaled with its question and shown on the inbox card:
   * `role`, the least role of an approver ('approver' or 'admin'; checked where people decide: the Studio,
   * the HTTP API, the CLI); `approvals`, how many different people approve before it runs (N of M: the
   * ones before the N-th are counted, one rejection rejects); `fourEyes`, who started the run does not
   * approve its calls. With four eyes or more than one approval, arguments are not changed on approval.
   * Default: any one person who may decide.
   */
  approvers?: ApprovalRule;
  /**
   * Retries of a throwing call within one invocation, each attempt journaled (default: runDurable's
   * `toolRetry.maxRetries`, else 2). A read-only tool's last error goes to the model; a side effect is
   * retried only when the unknown-outcome rule says it is safe (retrySafe, or check says not done).
   */
  maxRetries?: number;
  /** Delay before the first retry in milliseconds, doubled for each next one (default: runDurable's `toolRetry.initialDelayMs`, else 1000). */
  retryDelayMs?: number;
}

const OPTIONS = Symbol.for('gnl.tool.options');

type AnyTool = Tool<any, any>;
type InputOf<T> = T extends Tool<infer I, any> ? I : unknown;
type OutputOf<T> = T extends Tool<any, infer O> ? O : unknown;

export function gnlTool<T extends AnyTool>(tool: T, options: GnlToolOptions<InputOf<T>, OutputOf<T>>): T {
  if (options.retrySafe && !options.sideEffect) throw new TypeError('gnlTool: retrySafe applies to side-effecting tools; set sideEffect: true.');
  if (options.check && !options.sideEffect) throw new TypeError('gnlTool: check applies to side-effecting tools; set sideEffect: true.');
  if (options.approvalExpiresInMs !== undefined && !(Number.isFinite(options.approvalExpiresInMs) && options.approvalExpiresInMs > 0)) {
    throw new TypeError(`gnlTool: approvalExpiresInMs must be a positive number of milliseconds, got ${String(options.approvalExpiresInMs)}.`);
  }
  for (const name of ['maxRetries', 'retryDelayMs'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new TypeError(`gnlTool: ${name} must be a whole number >= 0, got ${String(value)}.`);
  }
  if (options.approvers !== undefined) {
    const parsed = approvalRuleSchema.strict().safeParse(options.approvers);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'approvers'}: ${issue.message}`).join('; ');
      throw new TypeError(`gnlTool: approvers must be { role?: 'approver' | 'admin', approvals?: 1-10, fourEyes?: boolean }: ${problems}.`, {
        cause: parsed.error,
      });
    }
  }
  if (options.idempotency !== undefined && options.idempotency !== 'call' && options.idempotency !== 'args') {
    throw new TypeError(`gnlTool: idempotency must be 'call' or 'args', got ${String(options.idempotency)}.`);
  }
  return Object.assign(Object.create(Object.getPrototypeOf(tool)), tool, { [OPTIONS]: options }) as T;
}

/** The tool's `lookup` (gnlTool's option), if it declares one. */
export function toolLookup(tool: AnyTool): GnlToolOptions['lookup'] {
  return gnlToolOptions(tool).lookup;
}

export function gnlToolOptions(tool: AnyTool): GnlToolOptions {
  return ((tool as Record<symbol, unknown>)[OPTIONS] as GnlToolOptions | undefined) ?? {};
}

/** How the tool is declared, as the decision tree (run-plan.ts) reads it: gnlTool's options, else the tool's own. */
export function toolDeclaration(tool: AnyTool): ToolDeclaration {
  const options = gnlToolOptions(tool);
  const needs = options.needsApproval ?? (tool as { needsApproval?: unknown }).needsApproval;
  return {
    sideEffect: options.sideEffect === true,
    idempotency: options.idempotency ?? 'call',
    retrySafe: options.retrySafe === true,
    check: typeof options.check === 'function',
    executes: typeof tool.execute === 'function',
    needsApproval: typeof needs === 'function' ? 'per-call' : needs === true,
  };
}
