/**
 * Operator decisions. decisions.ts holds the requests (approve, reject, resolve a side effect, provide a
 * tool result, cancel, resume, the link a restart leaves on the run it restarts), their zod schemas, and planDecision, the pure plan the journal appends
 * under the run's row lock. approved-input.ts: edit, then approve (the hash of the approved arguments and
 * the checks before they execute). The tests here race decisions against running invocations.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  type ApprovalDecisionRequest,
  type ApproveRequest,
  type SideEffectResolutionRequest,
  type ToolResultRequest,
  planDecision,
  planCancel,
  planResumeRequest,
  planRestartLink,
  restartLinkRequestSchema,
  type RestartLinkRequest,
  approvalDecisionSchema,
  approveRequestSchema,
  sideEffectResolutionSchema,
  toolResultSchema,
  cancelRequestSchema,
  resumeRequestSchema,
  type DecisionRequest,
  type PriorDecision,
} from './decisions';
export { approvedInputHash, assertInputMatchesSchema } from './approved-input';
