/**
 * `GNL-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by
 * GNL_NOTIFY_WEBHOOK_SECRET (or the webhook's own key, set in the Studio; during a rotation a second
 * `v1=` with the key before it: a receiver accepts a request any v1 of which it can verify). The timestamp is signed with the body, so a receiver that refuses old
 * timestamps also refuses a replayed request; the body is signed as sent, byte for byte.
 * docs/examples/notify-receiver.ts is a receiver that verifies it, with no GNL code.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'GNL-Signature';

export function signWebhook(args: { secret: string; body: string; timestamp: number; previousSecret?: string }): string {
  const t = Math.floor(args.timestamp);
  const v1 = (secret: string) => createHmac('sha256', secret).update(`${t}.${args.body}`).digest('hex');
  // During a key rotation's overlap, a second v1 with the key before it: a receiver accepts either.
  return `t=${t},v1=${v1(args.secret)}${args.previousSecret ? `,v1=${v1(args.previousSecret)}` : ''}`;
}
