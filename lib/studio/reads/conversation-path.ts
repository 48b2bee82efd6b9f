/**
 * A conversation's URL segment and page, and which conversation a run is a turn of. Browser-safe.
 *
 * Conversation ids are free text like run ids (1 to 200 printable characters, run-id.ts), so their
 * segment is made by the same encoding (run-path.ts: readable ids stay readable, nothing a browser or
 * Next.js would decode or resolve on the way).
 */
import { decodeRunSegment, encodeRunSegment } from './run-path';

export function encodeConversationSegment(conversationId: string): string {
  return encodeRunSegment(conversationId);
}

/** The conversation id of a segment made by encodeConversationSegment; undefined when the segment is not one. */
export function decodeConversationSegment(received: string): string | undefined {
  return decodeRunSegment(received);
}

/** The URL of a conversation's page (the Studio's thread of its turns). */
export function conversationHref(conversationId: string): string {
  return `/conversations/${encodeConversationSegment(conversationId)}`;
}

/** The conversation a run is one turn of, from its start input (`conversationId`); undefined for a run that is no chat's. */
export function conversationIdOf(input: { conversationId?: unknown } | null | undefined): string | undefined {
  const id = input?.conversationId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
