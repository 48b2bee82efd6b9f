/**
 * OpenTelemetry spans from the runtime itself, through the `@opentelemetry/api` the application already
 * configures (no exporter here: without a registered tracer provider every span is a no-op and nothing
 * is recorded in the journal).
 *
 * - `gnl.invocation`: one per runDurable / streamDurable call. The run's first recorded invocation span
 *   (run-start's `trace`, else the first run-resume's) is the parent of every later invocation's, so a run
 *   that crashed and resumed in another process reads as ONE trace; the caller's own active span, when
 *   there is one, is linked instead of being the parent. Each invocation's span is recorded in its
 *   run-start or run-resume event (`trace`), so the journal names the trace of every invocation.
 * - `gnl.model_step`: per model step; `gnl.replayed` true when the answer came from the journal (then the
 *   span lasts no time: nothing was asked).
 * - `gnl.tool_call`: per tool call; `gnl.outcome` executed, replayed, blocked or error, with the call's
 *   idempotency key and attempts. The tool's own spans nest under it.
 */
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import type { TraceContext } from '../journal/events';

const TRACER = 'gnl';

/** Attribute names, one spelling (tracing.test.ts reads them). */
export const ATTR = {
  runId: 'gnl.run_id',
  agent: 'gnl.agent',
  invocation: 'gnl.invocation',
  status: 'gnl.status',
  step: 'gnl.step',
  replayed: 'gnl.replayed',
  provider: 'gnl.model.provider',
  modelId: 'gnl.model.id',
  toolName: 'gnl.tool.name',
  toolCallId: 'gnl.tool_call.id',
  idempotencyKey: 'gnl.idempotency_key',
  attempt: 'gnl.attempt',
  sideEffect: 'gnl.side_effect',
  outcome: 'gnl.outcome',
} as const;

/** The spans of one invocation. Made when the run's record is read (its first trace is the parent). */
export class InvocationTrace {
  private constructor(
    readonly runId: string,
    private readonly span: Span,
    private readonly ctx: Context,
  ) {}

  /**
   * Starts the invocation's span, begun at `startTime` (when the call came in), under the run's recorded
   * trace when it has one, else under the caller's active context.
   */
  static start(args: { runId: string; agent?: string; recorded?: TraceContext; startTime: number; kind: string }): InvocationTrace {
    const caller = trace.getSpanContext(context.active());
    const parent = args.recorded
      ? trace.setSpanContext(ROOT_CONTEXT, { traceId: args.recorded.traceId, spanId: args.recorded.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true })
      : context.active();
    const links: Link[] = args.recorded && caller && isSpanContextValid(caller) ? [{ context: caller, attributes: { 'gnl.link': 'caller' } }] : [];
    const attributes: Attributes = { [ATTR.runId]: args.runId, [ATTR.invocation]: args.kind, ...(args.agent ? { [ATTR.agent]: args.agent } : {}) };
    const span = trace.getTracer(TRACER).startSpan('gnl.invocation', { kind: SpanKind.INTERNAL, startTime: args.startTime, attributes, links }, parent);
    return new InvocationTrace(args.runId, span, trace.setSpan(parent, span));
  }

  /** What run-start or run-resume records: this span, when a tracer provider records it. */
  get recorded(): TraceContext | undefined {
    const spanContext = this.span.spanContext();
    return isSpanContextValid(spanContext) && this.span.isRecording() ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
  }

  /** Runs `work` with this invocation's span active (the SDK's and the model provider's spans nest under it). */
  within<T>(work: () => T): T {
    return context.with(this.ctx, work);
  }

  /** A model step: a replayed one is a span of no duration (nothing was asked). */
  modelStep(args: { step: number; replayed: boolean; provider: string; modelId: string }): ChildSpan {
    return this.child('gnl.model_step', {
      [ATTR.step]: args.step,
      [ATTR.replayed]: args.replayed,
      [ATTR.provider]: args.provider,
      [ATTR.modelId]: args.modelId,
    });
  }

  toolCall(args: { toolName: string; toolCallId: string; idempotencyKey: string; sideEffect: boolean }): ChildSpan {
    return this.child('gnl.tool_call', {
      [ATTR.toolName]: args.toolName,
      [ATTR.toolCallId]: args.toolCallId,
      [ATTR.idempotencyKey]: args.idempotencyKey,
      [ATTR.sideEffect]: args.sideEffect,
    });
  }

  /** Ends the invocation with the run's status after it (or the error that ended it). */
  end(outcome: { status: string } | { error: unknown }): void {
    endSpan(this.span, outcome);
  }

  private child(name: string, attributes: Attributes): ChildSpan {
    const span = trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.INTERNAL, attributes: { [ATTR.runId]: this.runId, ...attributes } }, this.ctx);
    return new ChildSpan(span, trace.setSpan(this.ctx, span));
  }
}

export class ChildSpan {
  constructor(
    private readonly span: Span,
    private readonly ctx: Context,
  ) {}

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  within<T>(work: () => T): T {
    return context.with(this.ctx, work);
  }

  /** Ends the step or call: `status` is its outcome (`gnl.outcome`), or the error that ended it. */
  end(outcome: { status: string } | { error: unknown }): void {
    endSpan(this.span, outcome, ATTR.outcome);
  }
}

function endSpan(span: Span, outcome: { status: string } | { error: unknown }, key: string = ATTR.status): void {
  if ('error' in outcome) {
    const error = outcome.error;
    span.recordException(error instanceof Error ? error : { message: String(error) });
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  } else {
    span.setAttribute(key, outcome.status);
  }
  span.end();
}
