/** Why the Studio resumed a run on its own: the executor layer's resumeReason (record-decision.ts), shared with the HTTP API. */
export { resumeReason } from '@/lib/executor';
