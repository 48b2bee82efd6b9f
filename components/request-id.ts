/**
 * A form's request id: a random version 4 UUID from crypto.getRandomValues (crypto.randomUUID is missing on a
 * page served over plain HTTP from another host than localhost). One per request a form makes, so a submit
 * retried after a lost answer is the same request on the server.
 */
export function newRequestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
