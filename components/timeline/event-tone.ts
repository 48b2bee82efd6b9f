import type { JournalEventType } from '@/lib/durable';

export type Tone = 'model' | 'tool' | 'operator' | 'waiting' | 'lifecycle' | 'problem';

/** Each event type's tone (the cards' and the one-line view's): a Record over the vocabulary, so a new event type fails to compile until it has one. */
export const TONE = {
  'run-start': 'lifecycle',
  'run-resume': 'lifecycle',
  'model-step': 'model',
  'tool-call-start': 'tool',
  'tool-call-end': 'tool',
  'tool-call-error': 'problem',
  'tool-approval-request': 'waiting',
  'tool-approval-response': 'operator',
  'tool-approval-vote': 'operator',
  'side-effect-check': 'tool',
  'side-effect-resolution': 'operator',
  'replay-mismatch': 'problem',
  'run-suspend': 'waiting',
  'run-complete': 'lifecycle',
  'run-cancel': 'operator',
  'run-resume-request': 'operator',
  'run-migrate': 'operator',
  'run-forked': 'operator',
  'run-restarted': 'operator',
  'run-imported': 'operator',
  'run-fail': 'problem',
  'run-retry': 'lifecycle',
  'tool-call-repair': 'tool',
  'workflow-wait': 'waiting',
  'workflow-wait-end': 'lifecycle',
  'workflow-event': 'operator',
} satisfies Record<JournalEventType, Tone>;
