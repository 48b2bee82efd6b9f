/**
 * Webhooks set in the Studio (gnl.webhooks, migration 0021; the Webhooks screen), beside those of
 * GNL_NOTIFY_WEBHOOK_URL. Each has its own format and signing key; the address and the key are sealed
 * with the journal key when one is set (JournalSecrets.sealSetting: an address may carry a token) and
 * never leave this module except to the notifier that POSTs; lists show the origin only. A key is shown
 * once, when it is made. A rotation keeps the key before it for an overlap (default 24 h): each request
 * is signed with both (`v1=` twice in GNL-Signature) so receivers can switch at their pace. Every change
 * and every test sent is in gnl.webhook_audit (append-only), in the actor's name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { GnlError } from '@/lib/durable';
import type { JournalSecrets } from '@/lib/durable/storage';
import type { NotifyFormat, NotifyTarget } from './notify-settings';

type Database = { execute(statement: SQL): Promise<unknown> };

export interface WebhookRecord {
  id: string;
  label: string;
  /** The address's origin: all that is shown of it. */
  origin: string;
  format: NotifyFormat;
  enabled: boolean;
  /** While a rotation's overlap lasts: requests carry both signatures until then. */
  previousKeyUntil: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

export interface WebhookAuditEntry {
  webhookId: string;
  action: 'created' | 'secret-rotated' | 'paused' | 'resumed' | 'removed' | 'test-sent';
  by: string;
  at: Date;
  detail: Record<string, unknown>;
}

/** A request to the store that cannot be done as asked: a clear message for the person who asked. */
export class WebhookInputError extends GnlError {
  override readonly name = 'WebhookInputError';
}

const addSchema = z.object({
  label: z.string().trim().min(1, 'Say what the webhook is for (a label).').max(80, 'A label of at most 80 characters.'),
  url: z
    .string()
    .trim()
    .max(2_000, 'An address of at most 2 000 characters.')
    .pipe(z.url({ protocol: /^https?$/, error: 'An http or https address, such as https://ops.example.com/hooks/gnl.' })),
  format: z.enum(['json', 'slack']),
  by: z.string().min(1),
});

const reasonSchema = z.string().trim().min(1, 'Say why (it is kept in the audit).').max(500);

/** The id the outbox records a webhook's results under: as notifyTarget's, from the address. */
export function webhookId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 12);
}

/** A new signing key: 32 random bytes, hex, with a prefix that says what it is. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

export class WebhookStore {
  constructor(
    private readonly database: () => Promise<Database>,
    private readonly secrets: JournalSecrets,
  ) {}

  /** Whether addresses and keys are sealed (a journal key is set), for the screen to say so. */
  get sealed(): boolean {
    return this.secrets.encrypts;
  }

  async list(): Promise<WebhookRecord[]> {
    const rows = await this.rows<WebhookRow>(sql`select id, label, origin, format, enabled, previous_until as "previousUntil",
        created_by as "createdBy", created_at as "createdAt", updated_by as "updatedBy", updated_at as "updatedAt"
      from gnl.webhooks order by created_at, id`);
    return rows.map(toRecord);
  }

  /** The enabled webhooks with their addresses and keys opened: for the notifier alone. */
  async targets(now = new Date()): Promise<NotifyTarget[]> {
    return this.openTargets(sql`where enabled`, now);
  }

  /** One webhook, paused or not, opened: for "Send a test". */
  async target(id: string, now = new Date()): Promise<NotifyTarget> {
    const [target] = await this.openTargets(sql`where id = ${id}`, now);
    if (!target) throw new WebhookInputError(`No webhook ${id}.`);
    return target;
  }

  private async openTargets(where: SQL, now: Date): Promise<NotifyTarget[]> {
    const rows = await this.rows<WebhookRow & { url: unknown; secret: unknown; previousSecret: unknown }>(sql`select id, label, origin, format, enabled,
        url, secret, previous_secret as "previousSecret", previous_until as "previousUntil",
        created_by as "createdBy", created_at as "createdAt", updated_by as "updatedBy", updated_at as "updatedAt"
      from gnl.webhooks ${where} order by created_at, id`);
    return rows.map((row) => {
      const where = `webhook "${row.label}" (${row.origin})`;
      const overlap = row.previousSecret !== null && row.previousUntil !== null && new Date(row.previousUntil) > now;
      return {
        id: row.id,
        url: this.secrets.openSetting(row.url, `webhook:${row.id}:url`, `${where}'s address`),
        display: row.origin,
        format: row.format as NotifyFormat,
        secret: this.secrets.openSetting(row.secret, `webhook:${row.id}:secret`, `${where}'s signing key`),
        ...(overlap ? { previousSecret: this.secrets.openSetting(row.previousSecret, `webhook:${row.id}:previous`, `${where}'s previous key`) } : {}),
      };
    });
  }

  /** Adds a webhook; its signing key is in the answer this once. */
  async add(request: { label: string; url: string; format: NotifyFormat; by: string }): Promise<{ record: WebhookRecord; secret: string }> {
    const parsed = addSchema.safeParse(request);
    if (!parsed.success) throw new WebhookInputError(parsed.error.issues[0]?.message ?? 'Not a webhook.', { cause: parsed.error });
    const { label, url, format, by } = parsed.data;
    const id = webhookId(url);
    const origin = new URL(url).origin;
    const secret = newSecret();
    const sealedUrl = JSON.stringify(this.secrets.sealSetting(url, `webhook:${id}:url`));
    const sealedSecret = JSON.stringify(this.secrets.sealSetting(secret, `webhook:${id}:secret`));
    const inserted = await this.rows<{ id: string }>(sql`with w as (
        insert into gnl.webhooks (id, label, url, origin, format, secret, created_by, updated_by)
        values (${id}, ${label}, ${sealedUrl}::jsonb, ${origin}, ${format}, ${sealedSecret}::jsonb, ${by}, ${by})
        on conflict (id) do nothing returning id)
      insert into gnl.webhook_audit (webhook_id, action, by, detail)
      select id, 'created', ${by}, ${JSON.stringify({ label, origin, format })}::jsonb from w returning webhook_id as id`);
    if (inserted.length === 0) throw new WebhookInputError(`That address is already a webhook here (${origin}): rotate its key or remove it first.`);
    return { record: await this.get(id), secret };
  }

  /**
   * A new signing key, in the answer this once; the old one signs too for `overlapHours` (0: not at all).
   * `requestId` (the Studio's form sends one): the same request made again, after its answer was lost,
   * answers with the key it made, rotating nothing: a second rotation would make that never-shown key the
   * "previous" one and stop the original key at once, not after its overlap.
   */
  async rotateSecret(request: { id: string; by: string; overlapHours?: number; requestId?: string }): Promise<{
    secret: string;
    previousUntil: Date | null;
    /** True when the request was made before: its key again. */
    repeated?: boolean;
  }> {
    const overlapHours = request.overlapHours ?? 24;
    if (!(overlapHours >= 0 && overlapHours <= 24 * 7)) throw new WebhookInputError('The overlap is between 0 and 168 hours.');
    const requestId = request.requestId ?? null;
    const made = requestId ? await this.rotationMadeBy(request.id, requestId) : undefined;
    if (made) return made;
    const [current] = await this.rows<{ secret: unknown }>(sql`select secret from gnl.webhooks where id = ${request.id}`);
    if (!current) throw new WebhookInputError(`No webhook ${request.id}.`);
    const previous = this.secrets.openSetting(current.secret, `webhook:${request.id}:secret`, `webhook ${request.id}'s signing key`);
    const secret = newSecret();
    const sealedSecret = JSON.stringify(this.secrets.sealSetting(secret, `webhook:${request.id}:secret`));
    const sealedPrevious = overlapHours > 0 ? JSON.stringify(this.secrets.sealSetting(previous, `webhook:${request.id}:previous`)) : null;
    const [row] = await this.rows<{ previousUntil: Date | null }>(sql`with w as (
        update gnl.webhooks set secret = ${sealedSecret}::jsonb, previous_secret = ${sealedPrevious}::jsonb,
          previous_until = case when ${overlapHours}::int > 0 then now() + make_interval(hours => ${overlapHours}::int) end,
          updated_by = ${request.by}, updated_at = now()
        where id = ${request.id}
          and not exists (select 1 from gnl.webhook_audit a where a.webhook_id = ${request.id} and a.action = 'secret-rotated'
            and a.detail->>'requestId' = ${requestId}::text and a.at >= gnl.webhooks.created_at)
        returning id, previous_until)
      insert into gnl.webhook_audit (webhook_id, action, by, detail)
      select id, 'secret-rotated', ${request.by},
        jsonb_strip_nulls(jsonb_build_object('overlapHours', ${overlapHours}::int, 'requestId', ${requestId}::text)) from w
      returning (select previous_until from w) as "previousUntil"`);
    if (!row) {
      // The same request, made meanwhile by a retry that got there first: its key.
      const raced = requestId ? await this.rotationMadeBy(request.id, requestId) : undefined;
      if (raced) return raced;
      throw new WebhookInputError(`No webhook ${request.id}.`);
    }
    return { secret, previousUntil: row.previousUntil ? new Date(row.previousUntil) : null };
  }

  /** The key a rotation request made, when it was made and its key is still the webhook's; refused when it was rotated again since. */
  private async rotationMadeBy(id: string, requestId: string): Promise<{ secret: string; previousUntil: Date | null; repeated: true } | undefined> {
    const [made] = await this.rows<{ secret: unknown; previousUntil: Date | string | null; latest: boolean }>(sql`
      select w.secret, w.previous_until as "previousUntil",
        not exists (select 1 from gnl.webhook_audit later where later.webhook_id = a.webhook_id and later.action = 'secret-rotated' and later.id > a.id) as latest
      from gnl.webhook_audit a join gnl.webhooks w on w.id = a.webhook_id
      where a.webhook_id = ${id} and a.action = 'secret-rotated' and a.detail->>'requestId' = ${requestId}
        and a.at >= w.created_at -- a webhook removed and added again at the same address (the same id) is another one
      order by a.id desc limit 1`);
    if (!made) return undefined;
    if (!made.latest)
      throw new WebhookInputError('This rotation was made already, and the key has been rotated again since: its key is no longer the one in use.');
    const secret = this.secrets.openSetting(made.secret, `webhook:${id}:secret`, `webhook ${id}'s signing key`);
    return { secret, previousUntil: made.previousUntil ? new Date(made.previousUntil) : null, repeated: true };
  }

  async setEnabled(request: { id: string; enabled: boolean; by: string; reason: string }): Promise<WebhookRecord> {
    const reason = parseReason(request.reason);
    const action = request.enabled ? 'resumed' : 'paused';
    const [row] = await this.rows<{ id: string }>(sql`with w as (
        update gnl.webhooks set enabled = ${request.enabled}, updated_by = ${request.by}, updated_at = now()
        where id = ${request.id} returning id)
      insert into gnl.webhook_audit (webhook_id, action, by, detail)
      select id, ${action}, ${request.by}, jsonb_build_object('reason', ${reason}::text) from w returning webhook_id as id`);
    if (!row) throw new WebhookInputError(`No webhook ${request.id}.`);
    return this.get(request.id);
  }

  /** Removes it: nothing more is sent there. Its deliveries so far stay on each run's page; the audit keeps it. */
  async remove(request: { id: string; by: string; reason: string }): Promise<void> {
    const reason = parseReason(request.reason);
    const [row] = await this.rows<{ id: string }>(sql`with w as (delete from gnl.webhooks where id = ${request.id} returning id, label, origin)
      insert into gnl.webhook_audit (webhook_id, action, by, detail)
      select id, 'removed', ${request.by}, jsonb_build_object('reason', ${reason}::text, 'label', label, 'origin', origin) from w returning webhook_id as id`);
    if (!row) throw new WebhookInputError(`No webhook ${request.id}.`);
  }

  async recordTest(request: { id: string; by: string; httpStatus?: number; error?: string; ms: number }): Promise<void> {
    const detail = {
      ms: request.ms,
      ...(request.httpStatus !== undefined ? { httpStatus: request.httpStatus } : {}),
      ...(request.error ? { error: request.error } : {}),
    };
    await this.rows(
      sql`insert into gnl.webhook_audit (webhook_id, action, by, detail) values (${request.id}, 'test-sent', ${request.by}, ${JSON.stringify(detail)}::jsonb) returning id`,
    );
  }

  async audit(options: { id?: string; limit?: number } = {}): Promise<WebhookAuditEntry[]> {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
    const rows = await this.rows<WebhookAuditEntry>(sql`select webhook_id as "webhookId", action, by, at, detail from gnl.webhook_audit
      ${options.id ? sql`where webhook_id = ${options.id}` : sql``} order by id desc limit ${limit}`);
    return rows.map((row) => ({ ...row, at: new Date(row.at) }));
  }

  private async get(id: string): Promise<WebhookRecord> {
    const [row] = await this.rows<WebhookRow>(sql`select id, label, origin, format, enabled, previous_until as "previousUntil",
        created_by as "createdBy", created_at as "createdAt", updated_by as "updatedBy", updated_at as "updatedAt"
      from gnl.webhooks where id = ${id}`);
    if (!row) throw new WebhookInputError(`No webhook ${id}.`);
    return toRecord(row);
  }

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = (await (await this.database()).execute(statement)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }
}

interface WebhookRow {
  id: string;
  label: string;
  origin: string;
  format: string;
  enabled: boolean;
  previousUntil: Date | string | null;
  createdBy: string;
  createdAt: Date | string;
  updatedBy: string;
  updatedAt: Date | string;
}

function toRecord(row: WebhookRow): WebhookRecord {
  const now = Date.now();
  const until = row.previousUntil ? new Date(row.previousUntil) : null;
  return {
    id: row.id,
    label: row.label,
    origin: row.origin,
    format: row.format as NotifyFormat,
    enabled: row.enabled,
    previousKeyUntil: until && until.getTime() > now ? until : null,
    createdBy: row.createdBy,
    createdAt: new Date(row.createdAt),
    updatedBy: row.updatedBy,
    updatedAt: new Date(row.updatedAt),
  };
}

function parseReason(reason: string): string {
  const parsed = reasonSchema.safeParse(reason);
  if (!parsed.success) throw new WebhookInputError(parsed.error.issues[0]?.message ?? 'Say why.');
  return parsed.data;
}
