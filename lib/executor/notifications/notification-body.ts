/**
 * What a webhook says about one announced event (docs/notifications.md): the JSON body, or Slack's
 * `{ text }`. Built from the journal (the run's status, what it waits for, its error) with secrets
 * redacted as everywhere they are shown; the same event always has the same id.
 */
import { createHash } from 'node:crypto';
import { type PendingItem, type RunStatus, redactSecrets, type SecretFields } from '@/lib/durable';
import type { NotifyFormat } from './notify-settings';

/**
 * The event id receivers deduplicate by: derived from what the journal recorded (the run and the seq of
 * the event that started the wait or the failure), never from an attempt. Scheme `v1`, in the hash input,
 * so a later scheme never renames an event already announced.
 */
export function notificationEventId(runId: string, seq: number): string {
  return `gnl_evt_${createHash('sha256').update(`v1\n${runId}\n${seq}`).digest('hex').slice(0, 32)}`;
}

export interface AnnouncedEvent {
  runId: string;
  seq: number;
  /** The status the event gave the run. */
  status: RunStatus;
  /** When the event was recorded. */
  at: Date;
  agent: string | undefined;
  /** What the run waits for now (the suspend's items with the decisions since): none for a failure. */
  pending: readonly PendingItem[];
  error: { name: string; message: string } | undefined;
}

export interface NotificationBody {
  id: string;
  type: 'run.waiting' | 'run.failed';
  createdAt: string;
  run: { id: string; agent: string | null; status: RunStatus; seq: number; url: string | null };
  waitingFor: PendingItem[];
  error: { name: string; message: string } | null;
}

/** The Studio's link for a run: `/run?id=…` redirects to the run's page (its URL encoding stays the Studio's). */
export function studioRunLink(studioUrl: string | undefined, runId: string): string | null {
  return studioUrl ? `${studioUrl}/run?id=${encodeURIComponent(runId)}` : null;
}

export function notificationBody(event: AnnouncedEvent, options: { studioUrl?: string; fields: SecretFields }): NotificationBody {
  const failed = event.status === 'failed';
  return {
    id: notificationEventId(event.runId, event.seq),
    type: failed ? 'run.failed' : 'run.waiting',
    createdAt: event.at.toISOString(),
    run: { id: event.runId, agent: event.agent ?? null, status: event.status, seq: event.seq, url: studioRunLink(options.studioUrl, event.runId) },
    waitingFor: redactSecrets([...event.pending], options.fields),
    error: event.error ? redactSecrets(event.error, options.fields) : null,
  };
}

const WAITS: Record<PendingItem['kind'], string> = {
  approval: 'approval of',
  'side-effect': 'a person to settle the unknown outcome of',
  'tool-result': 'a person to give the result of',
};

/** A Slack incoming webhook's body: one line of mrkdwn (`<url|text>` links; `&`, `<`, `>` escaped). */
export function slackBody(body: NotificationBody): { text: string } {
  const mrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const run = body.run.url ? `<${body.run.url}|${mrkdwn(body.run.id)}>` : `\`${mrkdwn(body.run.id)}\``;
  const agent = body.run.agent ? ` (${mrkdwn(body.run.agent)})` : '';
  const what = body.error
    ? `failed: ${mrkdwn(`${body.error.name}: ${body.error.message}`)}`
    : `waits for ${body.waitingFor
        .filter((item) => !item.decision)
        .map((item) => `${WAITS[item.kind]} ${mrkdwn(item.toolName)} (${mrkdwn(item.toolCallId)})`)
        .join(', ')}`;
  return { text: `GNL: run ${run}${agent} ${what}` };
}

/** The request body as sent (and signed): the JSON body, or Slack's. */
export function encodeNotification(body: NotificationBody, format: NotifyFormat): string {
  return JSON.stringify(format === 'slack' ? slackBody(body) : body);
}
