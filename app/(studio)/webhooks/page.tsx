import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { Badge } from '@/components/ui/badge';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { WebhookAddForm, WebhookRowActions } from '@/components/webhooks/webhook-actions';
import { authorize } from '@/lib/accounts';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadWebhookScreen } from '@/lib/studio/reads/webhooks';

export const metadata: Metadata = { title: 'Webhooks' };

const AUDIT_WORDS: Record<string, string> = {
  created: 'added',
  'secret-rotated': 'rotated the key of',
  paused: 'paused',
  resumed: 'resumed',
  removed: 'removed',
  'test-sent': 'sent a test to',
};

export default async function WebhooksPage() {
  await connection(); // the journal is read per request, never prerendered
  const operator = await requireOperator();
  const admin = authorize({ kind: 'operator', login: operator.login, role: operator.role }, 'admin').ok;
  const screen = await loadWebhookScreen();
  const none = screen.webhooks.length === 0 && screen.environment.origins.length === 0;
  return (
    <div className="space-y-8">
      <section className="space-y-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Webhooks</h1>
          <p className="text-sm text-muted-foreground">
            When a run starts waiting for a person or fails for good, GNL POSTs a notification to each webhook, at least once, retried with backoff
            (docs/notifications.md). A change here is used by every executor within seconds, without a restart.{' '}
            {screen.sealed ? 'Addresses and keys are sealed with the journal key.' : null}
          </p>
          {!screen.sealed ? (
            <p className="text-sm text-amber-700 dark:text-amber-400" data-testid="webhooks-clear">
              No journal key is set (GNL_JOURNAL_KEY): addresses and signing keys are kept in clear in the journal&apos;s database.
            </p>
          ) : null}
        </div>
        {none ? (
          <p className="rounded-md border p-3 text-sm text-muted-foreground" data-testid="webhooks-none">
            No webhook is set: nothing is sent, and no run page lists notifications on their way. Add one below (or set GNL_NOTIFY_WEBHOOK_URL).
          </p>
        ) : null}
        {screen.webhooks.length > 0 ? (
          <table className="w-full text-sm" data-testid="webhooks">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-1">Label</th>
                <th>Sends to</th>
                <th>Body</th>
                <th>State</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {screen.webhooks.map((w) => (
                <tr key={w.id} className="border-t align-top" data-testid="webhook" data-id={w.id}>
                  <td className="py-2">
                    <VisibleText text={w.label} />
                  </td>
                  <td className="font-mono text-xs">
                    <VisibleText text={w.origin} />
                    /…
                  </td>
                  <td>{w.format === 'json' ? 'GNL JSON, signed' : 'Slack'}</td>
                  <td data-slot="state">
                    <Badge variant="outline">{w.enabled ? 'sending' : 'paused'}</Badge>
                    {w.previousKeyUntil ? (
                      <p className="text-xs text-muted-foreground">
                        old key signs too until <Time value={w.previousKeyUntil} />
                      </p>
                    ) : null}
                  </td>
                  <td>
                    <Time value={w.createdAt} /> by <VisibleText text={w.createdBy} />
                  </td>
                  <td>{admin ? <WebhookRowActions id={w.id} label={w.label} enabled={w.enabled} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {screen.environment.origins.length > 0 || screen.environment.problem ? (
          <div className="rounded-md border p-3 text-sm" data-testid="webhooks-env">
            <p className="font-medium">From the environment (GNL_NOTIFY_WEBHOOK_URL; changed there, with a restart)</p>
            {screen.environment.problem ? (
              <p className="text-destructive">
                <VisibleText text={screen.environment.problem} />
              </p>
            ) : (
              <p className="font-mono text-xs">
                {screen.environment.origins.map((o) => (
                  <span key={o} className="mr-3">
                    <VisibleText text={o} />
                    /…
                  </span>
                ))}
                <span className="text-muted-foreground">
                  {screen.environment.format}
                  {screen.environment.signed ? ', signed with GNL_NOTIFY_WEBHOOK_SECRET' : ', unsigned'}
                </span>
              </p>
            )}
          </div>
        ) : null}
        {admin ? <WebhookAddForm /> : <p className="text-sm text-muted-foreground">Only an admin adds or changes webhooks.</p>}
      </section>

      <section className="space-y-2">
        <h2 className="text-lg font-semibold tracking-tight">The signature</h2>
        <div className="space-y-2 text-sm text-muted-foreground">
          <p>
            Each request carries <code>GNL-Event-Id</code> (the same on every retry: deduplicate by it) and{' '}
            <code>GNL-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex&gt;</code>, where <code>v1</code> is the HMAC-SHA256, keyed with the webhook&apos;s key, of{' '}
            <code>&lt;t&gt;.&lt;the raw body&gt;</code>. During a key rotation a second <code>v1=</code> carries the old key&apos;s: accept the request if any{' '}
            <code>v1</code> verifies, and refuse a <code>t</code> more than five minutes old.
          </p>
          <pre className="overflow-x-auto rounded-md border bg-muted/40 p-3 text-xs" data-testid="webhook-verify">
            {`const [t, ...v1] = header.split(',').map((kv) => kv.split('='));
const expected = createHmac('sha256', key).update(\`\${t[1]}.\${rawBody}\`).digest('hex');
const ok = v1.some(([, sig]) => timingSafeEqual(Buffer.from(sig, 'hex'), Buffer.from(expected, 'hex')))
  && Math.abs(Date.now() / 1000 - Number(t[1])) < 300;`}
          </pre>
          <p>A whole receiver, with no GNL code: docs/examples/notify-receiver.ts.</p>
        </div>
      </section>

      <section className="space-y-2">
        <h2 className="text-lg font-semibold tracking-tight">Deliveries</h2>
        {screen.deliveries.length === 0 ? (
          <p className="text-sm text-muted-foreground" data-testid="deliveries-none">
            No notification tried yet.
          </p>
        ) : (
          <table className="w-full text-sm" data-testid="deliveries">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-1">When</th>
                <th>Run</th>
                <th>Event</th>
                <th>Delivery</th>
                <th>Each webhook</th>
              </tr>
            </thead>
            <tbody>
              {screen.deliveries.map((d) => (
                <tr key={`${d.runId}#${d.seq}`} className="border-t align-top" data-testid="delivery">
                  <td className="py-2">
                    <Time value={d.updatedAt} />
                  </td>
                  <td className="max-w-56 break-all font-mono text-xs">
                    <Link href={`/run?id=${encodeURIComponent(d.runId)}`} className="underline">
                      <VisibleText text={d.runId} />
                    </Link>
                  </td>
                  <td className="text-xs">
                    #{d.seq} {d.status}
                    <p className="font-mono text-muted-foreground">{d.eventId}</p>
                  </td>
                  <td>
                    {d.delivery}, {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
                    {d.lastError ? (
                      <p className="text-xs text-muted-foreground">
                        <VisibleText text={d.lastError} />
                      </p>
                    ) : null}
                  </td>
                  <td className="text-xs">
                    {d.targets.map((t) => (
                      <p key={t.target}>
                        <VisibleText text={t.target} />: {t.status}
                        {t.httpStatus ? ` (HTTP ${t.httpStatus})` : ''}
                        {t.error && !t.httpStatus ? (
                          <>
                            {' '}
                            (<VisibleText text={t.error} />)
                          </>
                        ) : null}
                      </p>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="space-y-2">
        <h2 className="text-lg font-semibold tracking-tight">Changes and tests</h2>
        {screen.audit.length === 0 ? (
          <p className="text-sm text-muted-foreground">Nothing changed yet.</p>
        ) : (
          <ul className="space-y-1 text-sm" data-testid="webhook-audit">
            {screen.audit.map((a, i) => (
              <li key={`${a.at}-${i}`} data-testid="webhook-audit-entry">
                <Time value={a.at} /> <VisibleText text={a.by} /> {AUDIT_WORDS[a.action] ?? a.action} <VisibleText text={a.label ?? a.webhookId} />
                {typeof a.detail.reason === 'string' ? (
                  <span className="text-muted-foreground">
                    : <VisibleText text={a.detail.reason} />
                  </span>
                ) : null}
                {a.action === 'test-sent' ? (
                  <span className="text-muted-foreground">
                    {' '}
                    ({typeof a.detail.httpStatus === 'number' ? `HTTP ${a.detail.httpStatus}` : <VisibleText text={String(a.detail.error ?? 'no answer')} />},{' '}
                    {String(a.detail.ms)} ms)
                  </span>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
