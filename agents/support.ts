/**
 * The demo support agent: looks the customer up, opens a ticket, refunds an order (a person approves
 * every refund), emails the customer the outcome. Its tools call the demo's outside service
 * (lib/demo/outside-service.ts, `npm run demo:service`); its model is a real provider when GNL_MODEL
 * and that provider's key are set, else the deterministic scripted model (lib/demo/demo-model.ts).
 *
 * It remembers (docs/memory.md): a run whose input names a `subject` (the customer) and a
 * `conversationId` is given that conversation's last messages and the customer's three most similar
 * earlier messages (recall with lib/demo/demo-embedding.ts: OpenAI's when its key is set, else a local
 * deterministic one), in the database its runs are journaled in; its turn is appended when it completes.
 */
import { type LanguageModel, stepCountIs } from 'ai';
import { defineAgent } from '@/lib/agents';
import { demoApprovalExpiresInMs, demoChecks } from '@/lib/demo/demo-config';
import { demoEmbeddingModel } from '@/lib/demo/demo-embedding';
import { demoModel } from '@/lib/demo/demo-model';
import { type SupportToolsOptions, supportTools } from '@/lib/demo/support-tools';

export const SUPPORT_SYSTEM = [
  'You are a customer support agent. For every request:',
  '1. Look the customer up by their id (like c_42). If there is no id, ask for it; if the customer does not exist, say so and change nothing.',
  '2. Open one support ticket for the request.',
  "3. If a refund is asked, issue it only for one of the customer's own orders and at most the order total (the whole order when no amount is given). A person approves every refund.",
  '4. If the customer asks a question your tools cannot answer, ask a colleague with askColleague and wait for the answer.',
  "5. Email the customer the outcome: a confirmation, the colleague's answer, or an apology if the refund was not approved or not possible.",
  '6. Reply with a one-line summary.',
].join('\n');

export interface SupportAgentOptions extends SupportToolsOptions {
  /** Default: demoModel(), chosen from the environment on first use. */
  model?: LanguageModel;
  /** Default 'support'. */
  name?: string;
  description?: string;
}

/** The support agent without `check` on its side effects (the Demo page's per-run choice; every executor finds it by name). */
export const SUPPORT_UNCHECKED = 'support-unchecked';

/** The support agent. Options default to the environment (GNL_DEMO_SERVICE_URL, GNL_DEMO_CHECKS, GNL_DEMO_APPROVAL_EXPIRES_MS, GNL_MODEL). */
export function supportAgent(options: SupportAgentOptions = {}) {
  const { model, name, description, ...tools } = options;
  const expires = demoApprovalExpiresInMs();
  return defineAgent({
    name: name ?? 'support',
    description: description ?? 'Customer support: looks the customer up, opens a ticket, refunds with approval, emails the outcome.',
    model: model ?? (() => demoModel()),
    tools: supportTools({ checks: demoChecks(), ...(expires !== undefined ? { approvalExpiresInMs: expires } : {}), ...tools }),
    system: SUPPORT_SYSTEM,
    stopWhen: stepCountIs(12),
    // No store named: the executor's own (the journal's database).
    memory: { lastMessages: 6, recall: { embeddingModel: demoEmbeddingModel(), topK: 3 } },
  });
}

export const support = supportAgent();

/**
 * The same agent with no `check` on issueRefund and sendEmail, whatever GNL_DEMO_CHECKS says: a crash
 * between sending and recording blocks the run until a person says whether it happened. A separate
 * name, so the choice is journaled with the run (run-start records the agent) and every executor that
 * resumes it, after any restart, runs it the same way.
 */
export const supportUnchecked = supportAgent({
  name: SUPPORT_UNCHECKED,
  description: 'The support agent without check: an unknown outcome of a refund or an email blocks the run until a person decides.',
  checks: false,
});

/** The support agent whose refunds four eyes approve (the Demo page's choice). */
export const SUPPORT_FOUR_EYES = 'support-four-eyes';

/**
 * The same agent whose refunds an approver or an admin approves, never the person who started the run
 * nor one who changed the refund's arguments (an approval rule: docs/human-approval.md).
 */
export const supportFourEyes = supportAgent({
  name: SUPPORT_FOUR_EYES,
  description: 'The support agent whose refunds four eyes approve: not who started the run, nor who changed the refund.',
  refundApprovers: { role: 'approver', fourEyes: true },
});
