/**
 * `GNL-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed by
 * GNL_NOTIFY_WEBHOOK_SECRET. The timestamp is signed with the body, so a receiver that refuses old
 * timestamps also refuses a replayed request; the body is signed as sent, byte for byte.
 * docs/examples/notify-receiver.ts is a receiver that verifies it, with no GNL code.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'GNL-Signature';

export function signWebhook(args: { secret: string; body: string; timestamp: number }): string {
  const t = Math.floor(args.timestamp);
  const v1 = createHmac('sha256', args.secret).update(`${t}.${args.body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
