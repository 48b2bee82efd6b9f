/** The runs the Studio e2e seed records, shared by the seed script and the specs. */

/** Shown as text, never run: the specs check that no such element appears and no dialog opens. */
export const HTML_PAYLOAD = '<img src=x onerror=alert(1)>';

export const SEEDED = {
  /** Looks up an order (the note carries HTML), then answers. Its id has characters a URL must encode. */
  completed: { runId: 'support:o_17/lookup?x#1 50% é', status: 'completed' },
  /** Asks to refund; the refund tool needs approval. */
  waiting: { runId: 'support:o_18', status: 'waiting-approval', tool: 'refund' },
  /** A side-effecting refund whose process was SIGKILLed inside execute, then resumed: blocked on an unknown outcome. */
  blocked: { runId: 'support:o_19', status: 'blocked', tool: 'refund' },
} as const;

/**
 * A chat of three turns, each a run of its own (runDurable with the conversation's id, the conversation
 * so far as its messages): two answered, the last waiting for approval of its refund. Its id has
 * characters a URL must encode; the second message carries HTML, shown as text.
 */
const CONVERSATION_ID = 'support chat c_42/7';
export const CONVERSATION = {
  conversationId: CONVERSATION_ID,
  tool: 'issueRefund',
  turns: [
    { runId: `chat:${CONVERSATION_ID}:m1`, status: 'completed', user: 'Where is my order o_20?', answer: 'Order o_20 shipped on Monday.' },
    {
      runId: `chat:${CONVERSATION_ID}:m2`,
      status: 'completed',
      user: `It arrived broken ${HTML_PAYLOAD}`,
      answer: 'Sorry to hear that. I can refund it.',
    },
    { runId: `chat:${CONVERSATION_ID}:m3`, status: 'waiting-approval', user: 'Please refund it: 40 EUR.', answer: undefined },
  ],
} as const;

/** The event types of the completed run, in journal order. */
/** (A read-only call records only its end, which carries its input.) */
export const COMPLETED_EVENT_TYPES = ['run-start', 'model-step', 'tool-call-end', 'model-step', 'run-complete'] as const;

/** Operator accounts the seed creates (lib/accounts), for signing in. Passwords are test-only. */
export const OPERATORS = {
  alice: { login: 'alice', name: 'Alice Operator', password: 'alice-e2e-password' },
  bob: { login: 'bob', name: 'Bob Operator', password: 'bob-e2e-password!' },
  /** A viewer (lib/accounts/authorize.ts): reads everything, decides nothing. Alice, the first account, is the admin; Bob approves. */
  vera: { login: 'vera', name: 'Vera Viewer', password: 'vera-e2e-password', role: 'viewer' },
} as const;

/**
 * The second Studio of the suite (project `long`): a fresh journal holding one long run, and no account
 * until the Studio's first start creates this one from GNL_STUDIO_OPERATOR_*.
 */
export const LONG = {
  runId: 'batch:long-run',
  /** Model steps, each calling a read-only tool: 1 run-start + 2 events per step. */
  steps: 1_250,
  lastSeq: 2_501,
  operator: { login: 'carol', name: 'Carol First', password: 'carol-first-start-pw' },
} as const;

/**
 * The operator of the Postgres Studio (project `postgres`, only when DATABASE_URL is set): its database
 * keeps accounts between runs, so the login is new each run (GNL_E2E_PG_LOGIN, set once by
 * playwright.config.ts and inherited by the web server and the workers).
 */
export function postgresOperator() {
  const login = process.env.GNL_E2E_PG_LOGIN;
  if (!login) throw new Error('GNL_E2E_PG_LOGIN is set by playwright.config.ts when DATABASE_URL is set');
  return { login, name: 'Pat Postgres', password: 'pat-postgres-e2e-password' };
}

/**
 * A run of the `long` Studio (seed-resumable.ts) that waits with its one approval decided and no resume
 * yet: its page offers Resume and Resume at… (resume-at.spec.ts schedules, then replaces, its resume).
 */
export const RESUMABLE = { runId: 'support:resume-at o_23', tool: 'refund' } as const;
