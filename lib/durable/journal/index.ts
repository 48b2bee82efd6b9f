/**
 * The journal: the port and what it records. journal.ts is the Journal interface the storage
 * adapters implement (../storage); events.ts types the events and event-schemas.ts holds one zod schema
 * per event type with its user-data fields (assertValidEvent, the append's check). json-codec.ts keeps
 * every value reading back deep-equal or refused by path; event-limit.ts sizes an event (MAX_EVENT_BYTES,
 * MAX_EVENTS_PER_RUN). run-status.ts: the statuses. exhaustive.ts: `unreachable`, the end of every fold.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { RUN_STATUSES, isRunStatus, type RunStatus } from './run-status';
export type {
  Journal,
  LiveJournal,
  RunHold,
  HoldOptions,
  CancelRequest,
  ResumeRequest,
  ListRunsOptions,
  RunPage,
  SubscribeOptions,
  Subscription,
  WatchRunsOptions,
  RunChange,
  StreamBatch,
  StreamBatchInput,
  WatchStreamOptions,
  ImportRunRequest,
} from './journal';
export { MAX_EVENT_BYTES, MAX_EVENTS_PER_RUN, MAX_JSON_DEPTH, encodeEvent, encodeEventParts } from './event-limit';
export {
  type JournalEvent,
  type JournalEventType,
  type RecordedEvent,
  type PendingItem,
  type Decision,
  type ApprovalRule,
  type ApprovalVote,
  type ApprovalProposal,
  type RunInput,
  type ErrorInfo,
  type TraceContext,
  errorInfo,
} from './events';
export { encodeJson, decodeJson, decodeOwnedJson } from './json-codec';
export { assertValidEvent } from './event-schemas';
export { USER_DATA } from './event-schemas';
export { unreachable } from './exhaustive';
