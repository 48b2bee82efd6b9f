/**
 * Traces. tracing.ts opens GNL's spans (gnl.invocation, gnl.model_step, gnl.tool_call; one trace per run
 * through run-start's and run-resume's `trace`) on @opentelemetry/api; replay-telemetry.ts keeps the AI
 * SDK's telemetry integrations from hearing replayed work. docs/operations.md#traces.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { ATTR, ChildSpan, InvocationTrace } from './tracing';
export { replayAwareTelemetry } from './replay-telemetry';
