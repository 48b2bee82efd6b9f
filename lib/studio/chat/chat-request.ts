/**
 * What the Studio's chat accepts from a browser, checked at the edge (zod): a conversation id the Studio
 * made (a UUID; it names the conversation in URLs and run ids), and one new user message of text parts,
 * as useChat sends it (its transport sends the last message only: prepareSendMessagesRequest in the
 * chat page). Everything else of the conversation comes from the journal, never from the browser.
 */
import { z } from 'zod';

export const MAX_CHAT_MESSAGE_CHARS = 4000;

/** One spelling per conversation: a UUID in lower case (the upper-case spelling of one is the same conversation, not a second). */
export const conversationIdSchema = z.uuid({ error: 'A conversation id is a UUID the Studio made.' }).transform((id) => id.toLowerCase());

export const userMessageSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, 'a message id is letters, digits, - and _'),
  role: z.literal('user', { error: 'Only a user message can be sent.' }),
  parts: z
    // Only what a text part is: any other key (providerMetadata, a part's state) is dropped here, never passed on to the run.
    .array(z.object({ type: z.literal('text', { error: 'A message is text only.' }), text: z.string() }))
    .min(1)
    .refine(
      (parts) =>
        parts
          .map((part) => part.text)
          .join('')
          .trim().length > 0,
      'The message is empty.',
    )
    .refine((parts) => parts.map((part) => part.text).join('').length <= MAX_CHAT_MESSAGE_CHARS, `A message is at most ${MAX_CHAT_MESSAGE_CHARS} characters.`),
});

export const chatRequestSchema = z.object({ id: conversationIdSchema, message: userMessageSchema });

export type ChatRequest = z.infer<typeof chatRequestSchema>;

/** The run of one user turn: the same message sent again (a retry) is the same job. */
export function turnRunId(conversationId: string, messageId: string): string {
  return `chat:${conversationId}:${messageId}`;
}

/** The user message id a turn's run id carries (turnRunId's inverse). */
export function messageIdOfTurn(runId: string): string | undefined {
  const match = /^chat:[0-9a-f-]{36}:([A-Za-z0-9_-]+)$/i.exec(runId);
  return match?.[1];
}
