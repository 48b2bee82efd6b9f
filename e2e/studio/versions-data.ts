/** What the `versions` project's Studio is seeded with (seed-versions.ts) and its spec checks (versions.spec.ts). */
export const VERSIONS = {
  /** A support run recorded on an earlier wording of the system prompt, waiting for its refund's approval. */
  runId: 'support:stranded-by-deploy',
  prompt: 'Customer c_42 wants a refund of 40 for order o_17',
  earlierWording: '(an earlier wording of the support prompt)',
  operator: { login: 'dana', name: 'Dana Deploys', password: 'dana-first-start-pw' },
} as const;

/**
 * What memory holds in the `versions` Studio's journal (seed-versions.ts) for memory.spec.ts: a customer
 * with facts (one carrying HTML and a hidden character), two working memory versions, and a completed run
 * given that customer's memory (its thread's last messages and two recalled facts, with their scores).
 */
export const MEMORY = {
  resource: 'customer:c_77',
  other: 'customer:c_78',
  thread: 'conv-77',
  runId: 'support:memory o_77',
  prompt: 'Was order o_77 damaged when it arrived?',
  answer: 'Yes: order o_77 arrived damaged, and a refund is on its way by email.',
  facts: ['order o_77 arrived damaged', 'prefers email over phone', '<img src=x onerror="window.__gnlPwned=1"> likes\u202Eevil'],
  working: [
    { value: { channel: 'phone', tier: 'silver' }, by: 'agent', reason: null },
    { value: { channel: 'email', tier: 'gold' }, by: 'agent', reason: 'the customer asked for email' },
  ],
} as const;
