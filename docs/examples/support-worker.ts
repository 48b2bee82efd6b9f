/**
 * Guide: Resume a generateText agent after a crash (docs/resume-after-crash.md).
 * A support agent behind a queue: look the customer up, open a ticket, email them.
 * The guide's code blocks are the #region parts of this file (docs/examples/code-blocks.test.ts).
 */
import { generateText, type LanguageModel, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { gnlTool, RunBusyError, runDurable, SideEffectRetryBlockedError } from '@gnldev/durable';
import { storageFromEnv } from '@gnldev/durable/storage';

const HELPDESK = process.env.HELPDESK_URL ?? 'http://127.0.0.1:4010';

export interface SupportJob {
  /** The queue message's id: the same on every delivery of this message. */
  id: string;
  message: string;
}

// #region tools
const lookupCustomer = tool({
  description: 'Look up a customer by id.',
  inputSchema: z.object({ customerId: z.string() }),
  execute: async ({ customerId }) => getJson(`${HELPDESK}/customers/${customerId}`),
});

const createTicket = tool({
  description: 'Open a support ticket.',
  inputSchema: z.object({ customerId: z.string(), subject: z.string() }),
  execute: async (input, { idempotencyKey }) =>
    postJson(`${HELPDESK}/tickets`, input, idempotencyKey),
});

const sendEmail = tool({
  description: 'Email a customer.',
  inputSchema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
  execute: async (input, { idempotencyKey }) =>
    postJson(`${HELPDESK}/emails`, input, idempotencyKey),
});
// #endregion

// #region before
export async function handleWithGenerateText(job: SupportJob, model: LanguageModel) {
  const result = await generateText({
    model,
    tools: { lookupCustomer, createTicket, sendEmail },
    stopWhen: stepCountIs(10),
    prompt: job.message,
  });
  return result.text;
}
// #endregion

// #region after
// Postgres when DATABASE_URL is set, else the embedded journal in .gnl/data (GNL_DATA_DIR).
const journal = storageFromEnv().runs;

// Mark the tools that change something outside the agent.
const tools = {
  lookupCustomer,
  createTicket: gnlTool(createTicket, { sideEffect: true, idempotency: 'args' }),
  sendEmail: gnlTool(sendEmail, { sideEffect: true, idempotency: 'args' }),
};

export async function handle(job: SupportJob, model: LanguageModel) {
  const result = await runDurable({
    runId: `support:${job.id}`, // the id of THIS job, never a session id
    journal,
    model,
    tools,
    stopWhen: stepCountIs(10),
    prompt: job.message,
  });
  if (result.status === 'waiting-approval') return { waiting: result.pending };
  if (result.status === 'canceled') return { canceledBy: result.by };
  if (result.status === 'waiting-tool-result') return { waiting: result.pending };
  return { text: result.text };
}
// #endregion

// #region outcomes
export type Delivery = 'done' | 'retry-later' | 'parked';

export async function onQueueMessage(job: SupportJob, model: LanguageModel): Promise<Delivery> {
  try {
    await handle(job, model);
    return 'done';
  } catch (error) {
    // Another worker is running this job right now: let the queue deliver it again later.
    if (RunBusyError.isInstance(error)) return 'retry-later';
    // A side effect may or may not have happened: a person decides (see the "ran twice" guide).
    if (SideEffectRetryBlockedError.isInstance(error)) {
      console.warn(`support job ${job.id} needs a person: ${error.message}`);
      return 'parked';
    }
    // Anything else (the model provider is down, a tool threw): the run is failed and resumable.
    // Rethrow so the queue redelivers; the next attempt continues where this one stopped.
    throw error;
  }
}
// #endregion

// #region http
async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return res.json();
}

async function postJson(url: string, body: unknown, idempotencyKey?: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      // Set by runDurable: the same on every attempt of this call. Undefined under plain generateText.
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status}`);
  return res.json();
}
// #endregion
