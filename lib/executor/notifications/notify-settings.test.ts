/** Webhook settings from the environment: nothing without a URL, refused at start when malformed, never echoing a URL. */
import { describe, expect, it } from 'vitest';
import { NotifySettingsError, notifySettingsFromEnv } from './notify-settings';

const SECRET = 'whsec-0123456789abcdef';

describe('notifySettingsFromEnv', () => {
  it('is off without GNL_NOTIFY_WEBHOOK_URL', () => {
    expect(notifySettingsFromEnv({})).toBeUndefined();
    expect(notifySettingsFromEnv({ GNL_NOTIFY_WEBHOOK_URL: ' ', GNL_NOTIFY_WEBHOOK_SECRET: SECRET })).toBeUndefined();
  });

  it('reads several webhooks, each named by a fingerprint and shown by its origin only', () => {
    const settings = notifySettingsFromEnv({
      GNL_NOTIFY_WEBHOOK_URL: 'https://a.example.com/hook?token=t1, http://127.0.0.1:9000/x',
      GNL_NOTIFY_WEBHOOK_SECRET: SECRET,
      GNL_STUDIO_URL: 'https://studio.example.com/',
      GNL_NOTIFY_MAX_ATTEMPTS: '3',
    });
    expect(settings).toMatchObject({ format: 'json', secret: SECRET, studioUrl: 'https://studio.example.com', maxAttempts: 3, timeoutMs: 10_000 });
    expect(settings?.targets.map((t) => t.display)).toEqual(['https://a.example.com', 'http://127.0.0.1:9000']);
    expect(settings?.targets.map((t) => t.id)).toEqual([expect.stringMatching(/^[0-9a-f]{12}$/), expect.stringMatching(/^[0-9a-f]{12}$/)]);
  });

  it('refuses a JSON webhook without a secret, a short secret, a bad URL (not echoed) and an unknown format, naming the setting', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        notifySettingsFromEnv(env);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const url = 'https://a.example.com/hook';
    expect(refusal({ GNL_NOTIFY_WEBHOOK_URL: url })).toMatchObject({ name: 'NotifySettingsError', setting: 'GNL_NOTIFY_WEBHOOK_SECRET' });
    expect(refusal({ GNL_NOTIFY_WEBHOOK_URL: url, GNL_NOTIFY_WEBHOOK_SECRET: 'short' })).toMatchObject({ setting: 'GNL_NOTIFY_WEBHOOK_SECRET' });
    const bad = refusal({ GNL_NOTIFY_WEBHOOK_URL: `${url} ftp://files.example.com/secret-token`, GNL_NOTIFY_WEBHOOK_SECRET: SECRET });
    expect(bad).toBeInstanceOf(NotifySettingsError);
    expect(bad).toMatchObject({ setting: 'GNL_NOTIFY_WEBHOOK_URL', message: expect.stringContaining('entry 2') });
    expect((bad as Error).message).not.toContain('secret-token');
    expect(refusal({ GNL_NOTIFY_WEBHOOK_URL: url, GNL_NOTIFY_WEBHOOK_SECRET: SECRET, GNL_NOTIFY_WEBHOOK_FORMAT: 'teams' })).toMatchObject({
      setting: 'GNL_NOTIFY_WEBHOOK_FORMAT',
    });
  });

  it('a Slack webhook needs no secret', () => {
    expect(notifySettingsFromEnv({ GNL_NOTIFY_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X', GNL_NOTIFY_WEBHOOK_FORMAT: 'slack' })).toMatchObject({
      format: 'slack',
      targets: [{ display: 'https://hooks.slack.com' }],
    });
  });
});
