import { describe, expect, it } from 'vitest';
import { conversationHref, conversationIdOf, decodeConversationSegment, encodeConversationSegment } from './conversation-path';

describe('conversation URLs', () => {
  it.each(['c_42', 'chat/7?x#1 50% é', '..', '<img src=x>'])('round-trips %j, percent-decoded on the way or not', (id) => {
    const segment = encodeConversationSegment(id);
    expect(decodeConversationSegment(segment)).toBe(id);
    expect(decodeConversationSegment(encodeURIComponent(segment))).toBe(id);
    expect(conversationHref(id)).toBe(`/conversations/${segment}`);
  });

  it('keeps plain ids readable', () => {
    expect(conversationHref('support:c_42')).toBe('/conversations/support:c_42');
  });

  it('finds the conversation in a run input, and none where there is none', () => {
    expect(conversationIdOf({ conversationId: 'c_42' })).toBe('c_42');
    expect(conversationIdOf({})).toBeUndefined();
    expect(conversationIdOf({ conversationId: '' })).toBeUndefined();
    expect(conversationIdOf({ conversationId: 7 })).toBeUndefined();
    expect(conversationIdOf(undefined)).toBeUndefined();
  });
});
