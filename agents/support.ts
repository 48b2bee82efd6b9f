/**
 * The demo support agent: looks the customer up, opens a ticket, refunds an order (a person approves
 * every refund), emails the customer the outcome. Its tools call the demo's outside service
 * (lib/demo/outside-service.ts, `npm run demo:service`); its model is a real provider when GNL_MODEL
 * and that provider's key are set, else the deterministic scripted model (lib/demo/demo-model.ts).
 */
import { type LanguageModel, stepCountIs } from 'ai';
import { defineAgent } from '@/lib/agents';
import { demoApprovalExpiresInMs, demoChecks } from '@/lib/demo/demo-config';
import { demoModel } from '@/lib/demo/demo-model';
import { type SupportToolsOptions, supportTools } from '@/lib/demo/support-tools';

export const SUPPORT_SYSTEM = [
  'You are a customer support agent. For every request:',
  '1. Look the customer up by their id (like c_42). If there is no id, ask for it; if the customer does not exist, say so and change nothing.',
  '2. Open one support ticket for the request.',
  "3. If a refund is asked, issue it only for one of the customer's own orders and at most the order total (the whole order when no amount is given). A person approves every refund.",
  '4. Email the customer the outcome: a confirmation, or an apology if the refund was not approved or not possible.',
  '5. Reply with a one-line summary.',
].join('\n');

export interface SupportAgentOptions extends SupportToolsOptions {
  /** Default: demoModel(), chosen from the environment on first use. */
  model?: LanguageModel;
}

/** The support agent. Options default to the environment (GNL_DEMO_SERVICE_URL, GNL_DEMO_CHECKS, GNL_DEMO_APPROVAL_EXPIRES_MS, GNL_MODEL). */
export function supportAgent(options: SupportAgentOptions = {}) {
  const { model, ...tools } = options;
  const expires = demoApprovalExpiresInMs();
  return defineAgent({
    name: 'support',
    description: 'Customer support: looks the customer up, opens a ticket, refunds with approval, emails the outcome.',
    model: model ?? (() => demoModel()),
    tools: supportTools({ checks: demoChecks(), ...(expires !== undefined ? { approvalExpiresInMs: expires } : {}), ...tools }),
    system: SUPPORT_SYSTEM,
    stopWhen: stepCountIs(12),
  });
}

export const support = supportAgent();
