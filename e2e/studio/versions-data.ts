/** What the `versions` project's Studio is seeded with (seed-versions.ts) and its spec checks (versions.spec.ts). */
export const VERSIONS = {
  /** A support run recorded on an earlier wording of the system prompt, waiting for its refund's approval. */
  runId: 'support:stranded-by-deploy',
  prompt: 'Customer c_42 wants a refund of 40 for order o_17',
  earlierWording: '(an earlier wording of the support prompt)',
  operator: { login: 'dana', name: 'Dana Deploys', password: 'dana-first-start-pw' },
} as const;
