/**
 * Sends the outbox's webhooks (docs/notifications.md). Every executor process with webhooks configured
 * runs one (the Studio's, each worker, `gnl --wait`'s): it claims due rows at start, whenever its
 * executor finishes an invocation, and every pollMs, so a run that suspended in a process that died is
 * announced by the next process that looks. Each row: judged against the journal (announcement-verdict.ts),
 * its body built from the journal with secrets redacted, POSTed signed to every webhook not yet reached,
 * the outcome recorded (attempts, per-webhook status, last error, next attempt with backoff and jitter;
 * after maxAttempts, failed). At least once: receivers deduplicate by the event id.
 */
import { type LiveJournal, RunState, type RunStatus, type SecretFields, secretFieldsFromEnv } from '@/lib/durable';
import { type AnnouncedEvent, encodeNotification, notificationBody, notificationEventId } from './notification-body';
import type { ClaimedNotification, NotificationOutbox, Settlement, TargetResult } from './notification-outbox';
import type { NotifySettings, NotifyTarget } from './notify-settings';
import type { RunQueue } from '../run-queue';
import { announcementVerdict } from './announcement-verdict';
import { SIGNATURE_HEADER, signWebhook } from './webhook-signature';

export const EVENT_ID_HEADER = 'GNL-Event-Id';

/** What the notifier does with each event (the worker prints these). */
export type NotifierEvent =
  /** About to POST it (a claim is held; nothing sent yet). */
  | { type: 'notification-sending'; runId: string; seq: number; eventId: string; attempt: number }
  | { type: 'notification'; runId: string; seq: number; eventId: string; outcome: Settlement['outcome']; attempts: number; error?: string };

export interface NotifierOptions {
  settings: NotifySettings;
  journal: LiveJournal;
  outbox: NotificationOutbox;
  queue: RunQueue;
  owner: string;
  /** See NotificationOutbox.claim. */
  sole: boolean;
  /** How long a claim holds a row. Default: the webhooks' time limits plus a minute. */
  leaseMs?: number;
  /**
   * Webhooks set in the Studio (webhook-store.ts), read again at most every 5 s beside `settings.targets`:
   * a webhook added, paused or removed there takes effect without a restart.
   */
  directory?: { targets(): Promise<NotifyTarget[]> };
  /** How often to look for due rows when nothing wakes it. Default 5 000 ms. */
  pollMs?: number;
  /** Secret field names for redaction. Default: GNL_SECRET_FIELDS over the default list. */
  fields?: SecretFields;
  /** The jitter source. Default Math.random. */
  random?: () => number;
  onEvent?: (event: NotifierEvent) => void;
  onError?: (where: string, error: unknown) => void;
}

const BATCH = 8;

export class Notifier {
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly fields: SecretFields;
  private directoryRead: { at: number; targets: NotifyTarget[] } | undefined;

  constructor(private readonly options: NotifierOptions) {
    this.fields = options.fields ?? secretFieldsFromEnv(process.env);
  }

  /** The settings' webhooks and the directory's (one per id: the settings' win), the directory's read at most every 5 s. */
  async targets(): Promise<NotifyTarget[]> {
    const { directory, settings } = this.options;
    if (directory && (!this.directoryRead || Date.now() - this.directoryRead.at > DIRECTORY_TTL_MS)) {
      this.directoryRead = { at: Date.now(), targets: await directory.targets() };
    }
    const ids = new Set(settings.targets.map((t) => t.id));
    return [...settings.targets, ...(this.directoryRead?.targets ?? []).filter((t) => !ids.has(t.id))];
  }

  start(): this {
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 5_000);
    this.timer.unref?.();
    this.kick();
    return this;
  }

  /** Look for due notifications now (a pass already running looks again when it ends). */
  kick(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = this.pass().finally(() => {
      this.passing = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Stops looking after one last pass (so `gnl --wait` announces the wait it ends on before the process exits). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.passing;
    if (!this.stopped) await this.pass();
    this.stopped = true;
  }

  /** Claims and handles due rows until none is left. */
  async pass(): Promise<void> {
    const { outbox, owner, sole, settings } = this.options;
    try {
      // No webhook anywhere: nothing is claimed, so nothing is tried (the outbox keeps the rows for one set later).
      const targets = await this.targets();
      if (targets.length === 0) return;
      const leaseMs = this.options.leaseMs ?? settings.timeoutMs * targets.length + 60_000;
      for (;;) {
        const rows = await outbox.claim({ owner, limit: BATCH, leaseMs, sole });
        await Promise.all(rows.map((row) => this.handle(row, targets)));
        if (rows.length < BATCH) return;
      }
    } catch (error) {
      this.options.onError?.('notify claim', error);
    }
  }

  private async handle(row: ClaimedNotification, targets: readonly NotifyTarget[]): Promise<void> {
    let settlement: Settlement;
    try {
      settlement = await this.settlementOf(row, targets);
    } catch (error) {
      // The journal could not be read (a missing journal key, an outage): an attempt like any failed POST.
      settlement = this.afterFailure(row, row.targets, describe(error));
    }
    try {
      await this.options.outbox.settle({ runId: row.runId, seq: row.seq, owner: this.options.owner, settlement });
      this.options.onEvent?.({
        type: 'notification',
        runId: row.runId,
        seq: row.seq,
        eventId: notificationEventId(row.runId, row.seq),
        outcome: settlement.outcome,
        attempts: row.attempts + (settlement.outcome === 'defer' || settlement.outcome === 'superseded' || settlement.outcome === 'expired' ? 0 : 1),
        ...('error' in settlement ? { error: settlement.error } : {}),
      });
    } catch (error) {
      this.options.onError?.(`notify ${row.runId}#${row.seq}`, error); // the lease expires and the row is claimed again
    }
  }

  private async settlementOf(row: ClaimedNotification, webhooks: readonly NotifyTarget[]): Promise<Settlement> {
    const { settings, journal, queue } = this.options;
    if (row.attempts === 0 && row.ageMs > settings.maxAgeMs)
      return { outcome: 'expired', reason: `older than ${Math.round(settings.maxAgeMs / 3_600_000)} h when first seen by a process with webhooks` };
    const events = await journal.events(row.runId, { afterSeq: row.seq - 1 });
    const since = new RunState(events);
    const verdict = announcementVerdict({ announced: row.status, since, queue: await queue.entry(row.runId), now: new Date() });
    if ('superseded' in verdict) return { outcome: 'superseded', reason: verdict.superseded };
    if ('deferMs' in verdict) return { outcome: 'defer', inMs: verdict.deferMs };
    const run = await journal.getRun(row.runId);
    const event: AnnouncedEvent = {
      runId: row.runId,
      seq: row.seq,
      status: row.status as RunStatus,
      at: events[0]?.at ?? row.createdAt,
      agent: run?.input.agent,
      pending: since.pending,
      error: row.status === 'failed' ? since.failure : undefined,
    };
    const body = notificationBody(event, { fields: this.fields, ...(settings.studioUrl ? { studioUrl: settings.studioUrl } : {}) });
    const eventId = notificationEventId(row.runId, row.seq);
    this.options.onEvent?.({ type: 'notification-sending', runId: row.runId, seq: row.seq, eventId, attempt: row.attempts + 1 });
    const targets = { ...row.targets };
    await Promise.all(
      webhooks
        .filter((target) => targets[target.id]?.status !== 'delivered')
        .map(async (target) => {
          targets[target.id] = await postWebhook(target, encodeNotification(body, target.format ?? settings.format), eventId, settings);
        }),
    );
    const failures = webhooks.map((target) => targets[target.id]).filter((result) => result?.status !== 'delivered');
    if (failures.length === 0) return { outcome: 'delivered', targets };
    return this.afterFailure(row, targets, failures.map((result) => `${result?.target}: ${result?.error}`).join('; '));
  }

  private afterFailure(row: ClaimedNotification, targets: Record<string, TargetResult>, error: string): Settlement {
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.options.settings;
    if (row.attempts + 1 >= maxAttempts) return { outcome: 'failed', targets, error };
    // Exponential, with jitter over its upper half: receivers that failed together are not retried together.
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** row.attempts);
    const inMs = Math.round(ceiling / 2 + (this.options.random ?? Math.random)() * (ceiling / 2));
    return { outcome: 'retry', targets, error, inMs };
  }
}

const DIRECTORY_TTL_MS = 5_000;

/**
 * One signed POST of `body` to `target` (its own key, else the settings'; during a rotation both), with
 * the event id: the notifier's delivery and the Studio's "Send a test" alike.
 */
export async function postWebhook(
  target: NotifyTarget,
  body: string,
  eventId: string,
  settings: Pick<NotifySettings, 'secret' | 'timeoutMs'>,
): Promise<TargetResult> {
  const secret = target.secret ?? settings.secret;
  const at = () => new Date().toISOString();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'GNL-Notify/1', [EVENT_ID_HEADER]: eventId };
  if (secret)
    headers[SIGNATURE_HEADER] = signWebhook({
      secret,
      body,
      timestamp: Date.now() / 1000,
      ...(target.previousSecret ? { previousSecret: target.previousSecret } : {}),
    });
  try {
    const response = await fetch(target.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(settings.timeoutMs) });
    await response.body?.cancel();
    return response.ok
      ? { target: target.display, status: 'delivered', httpStatus: response.status, at: at() }
      : { target: target.display, status: 'failed', httpStatus: response.status, error: `HTTP ${response.status}`, at: at() };
  } catch (error) {
    return { target: target.display, status: 'failed', error: describe(error), at: at() };
  }
}

/** An error and its causes on one line (fetch's "fetch failed" keeps ECONNREFUSED in its cause), without the URL. */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}${'code' in e && e.code ? ` (${String(e.code)})` : ''}` : String(e));
    if (!(e instanceof Error)) break;
  }
  return parts.join(' <- ');
}
