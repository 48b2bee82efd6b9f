/**
 * Webhook notifications' settings (docs/notifications.md), validated once at start: a malformed setting
 * stops the process naming it, as a malformed journal key does. Without GNL_NOTIFY_WEBHOOK_URL nothing is
 * sent (the outbox rows are still written by the journal; a process configured later sends the recent ones).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

export type NotifyFormat = 'json' | 'slack';

/** One webhook: its URL (never stored or shown: it may hold a token), a fingerprint and what may be shown of it. */
export interface NotifyTarget {
  url: string;
  /** 12 hex characters of the URL's SHA-256: how the outbox records each webhook's result. */
  id: string;
  /** The URL's origin (scheme, host and port): what the run page shows. */
  display: string;
  /** Its own body format and signing key (a webhook set in the Studio: webhook-store.ts); else the settings'. */
  format?: NotifyFormat;
  secret?: string;
  /** During a key rotation's overlap: requests are signed with this key too. */
  previousSecret?: string;
}

export interface NotifySettings {
  targets: NotifyTarget[];
  /** HMAC-SHA256 key of `GNL-Signature`. Required for the JSON body; optional for Slack's (which ignores it). */
  secret?: string;
  /** 'json' (default) or 'slack' (`{ text }` for a Slack incoming webhook). */
  format: NotifyFormat;
  /** The Studio's address as people reach it (GNL_STUDIO_URL): the body links the run there. Default: no link. */
  studioUrl?: string;
  /** Attempts per event before it is marked failed. Default 8. */
  maxAttempts: number;
  /** The first retry's delay; each next one doubles, with full jitter, up to maxDelayMs. Default 5 s. */
  baseDelayMs: number;
  /** Default 1 h. */
  maxDelayMs: number;
  /** One POST's time limit. Default 10 s. */
  timeoutMs: number;
  /** An event never tried by this age is not sent (marked expired): turning webhooks on does not announce old runs. Default 72 h. */
  maxAgeMs: number;
}

const url = z.url({ protocol: /^https?$/ });
const positiveInt = z.coerce.number().int().positive();

const envSchema = z.object({
  GNL_NOTIFY_WEBHOOK_URL: z.string().optional(),
  GNL_NOTIFY_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  GNL_NOTIFY_WEBHOOK_FORMAT: z.enum(['json', 'slack']).default('json'),
  GNL_STUDIO_URL: url.optional(),
  GNL_NOTIFY_MAX_ATTEMPTS: positiveInt.default(8),
  GNL_NOTIFY_TIMEOUT_MS: positiveInt.default(10_000),
});

/** A setting that cannot be used: which one, and why. */
export class NotifySettingsError extends Error {
  override readonly name = 'NotifySettingsError';
  constructor(
    readonly setting: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting} ${message} (docs/notifications.md)`, options);
  }
}

/** A webhook from its URL; the URL is never echoed in the error (it may hold a token). */
export function notifyTarget(raw: string, position = 1): NotifyTarget {
  const parsed = url.safeParse(raw);
  if (!parsed.success) throw new NotifySettingsError('GNL_NOTIFY_WEBHOOK_URL', `entry ${position} is not an http or https URL`, { cause: parsed.error });
  return { url: raw, id: createHash('sha256').update(raw).digest('hex').slice(0, 12), display: new URL(raw).origin };
}

/** The settings from the environment, or undefined when no webhook is set. Throws NotifySettingsError naming a bad one. */
export function notifySettingsFromEnv(env: Record<string, string | undefined> = process.env): NotifySettings | undefined {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new NotifySettingsError(String(issue?.path[0] ?? 'GNL_NOTIFY_*'), issue?.message ?? 'is invalid', { cause: parsed.error });
  }
  const values = parsed.data;
  const urls = (values.GNL_NOTIFY_WEBHOOK_URL ?? '').split(/[\s,]+/).filter(Boolean);
  if (urls.length === 0) return undefined;
  return { ...baseSettings(values), targets: urls.map((raw, i) => notifyTarget(raw, i + 1)) };
}

/**
 * The settings for webhooks set in the Studio alone (each with its own key and format): the environment's
 * GNL_STUDIO_URL, attempts and time limit, no webhook of its own. GNL_NOTIFY_WEBHOOK_URL's, when set.
 */
export function notifySettingsForDirectory(env: Record<string, string | undefined> = process.env): NotifySettings {
  const fromEnv = notifySettingsFromEnv(env);
  if (fromEnv) return fromEnv;
  const parsed = envSchema.safeParse(env);
  if (!parsed.success)
    throw new NotifySettingsError(String(parsed.error.issues[0]?.path[0] ?? 'GNL_NOTIFY_*'), parsed.error.issues[0]?.message ?? 'is invalid', {
      cause: parsed.error,
    });
  return { ...baseSettings(parsed.data), targets: [] };
}

function baseSettings(values: z.infer<typeof envSchema>): Omit<NotifySettings, 'targets'> {
  const urls = (values.GNL_NOTIFY_WEBHOOK_URL ?? '').split(/[\s,]+/).filter(Boolean);
  const format = values.GNL_NOTIFY_WEBHOOK_FORMAT;
  if (urls.length > 0 && format === 'json' && !values.GNL_NOTIFY_WEBHOOK_SECRET)
    throw new NotifySettingsError('GNL_NOTIFY_WEBHOOK_SECRET', 'is required with the JSON body: receivers verify GNL-Signature with it');
  return {
    format,
    ...(values.GNL_NOTIFY_WEBHOOK_SECRET ? { secret: values.GNL_NOTIFY_WEBHOOK_SECRET } : {}),
    ...(values.GNL_STUDIO_URL ? { studioUrl: values.GNL_STUDIO_URL.replace(/\/+$/, '') } : {}),
    maxAttempts: values.GNL_NOTIFY_MAX_ATTEMPTS,
    baseDelayMs: 5_000,
    maxDelayMs: 3_600_000,
    timeoutMs: values.GNL_NOTIFY_TIMEOUT_MS,
    maxAgeMs: 72 * 3_600_000,
  };
}
