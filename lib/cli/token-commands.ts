/**
 * `gnl token create|list|revoke|history`: API tokens for services (lib/accounts/api-tokens.ts,
 * docs/api.md), and `gnl serve`: the HTTP API without the Studio's UI, with an executor of its own.
 */
import type { Command } from 'commander';
import { apiTokenAuditTrail, type ApiToken, createApiToken, listApiTokens, PERMISSIONS, processActor, revokeApiToken } from '@/lib/accounts';
import { Executor, type ExecutorEvent } from '@/lib/executor';
import { CrashPointStore } from '@/lib/demo';
import { serveApi } from '@/lib/server';
import { CliError } from './failures';
import { clean, dateTime, json, table } from './format';
import { jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

function state(token: ApiToken): string {
  if (token.revoked) return `revoked ${dateTime(token.revoked.at)} by ${clean(token.revoked.by)}`;
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return `expired ${dateTime(token.expiresAt)}`;
  return token.expiresAt ? `active until ${dateTime(token.expiresAt)}` : 'active';
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function registerTokenCommands(program: Command, session: CliSession): void {
  const token = program.command('token').description('API tokens for services: create (shown once), list, revoke, history');

  const create = token
    .command('create')
    .description('make an API token; it is printed once and kept only as a hash')
    .argument('<name>', 'how the journal names what it does (token:<name>); a-z, 0-9, . _ -')
    .requiredOption('--scope <scopes>', `what it may do, comma-separated: ${PERMISSIONS.join(', ')} (admin: all)`, list)
    .option('--agent <names>', 'only runs of these agents or workflows, comma-separated (default: all)', list)
    .option('--expires-in-days <n>', 'refused after this many days (default: never)', wholeNumber(1, 3650))
    .option('--by <who>', 'who makes it (recorded; default: your OS account, os:<user>@<host>)');
  jsonOption(create).action(async (name: string, opts: { scope: string[]; agent?: string[]; expiresInDays?: number; by?: string; json?: boolean }) => {
    const made = await createApiToken({
      storage: session.storage(),
      name,
      scopes: opts.scope,
      ...(opts.agent ? { agents: opts.agent } : {}),
      ...(opts.expiresInDays ? { expiresAt: new Date(Date.now() + opts.expiresInDays * 86_400_000) } : {}),
      by: opts.by ?? processActor(),
    });
    const about = `API token "${clean(made.record.name)}" (${made.record.scopes.join(', ')}${made.record.agents ? `; only ${made.record.agents.map(clean).join(', ')}` : ''}), ${state(made.record)}.`;
    // The one place a secret is printed on purpose: --json's redaction would hide the only copy of it.
    if (opts.json) session.line(JSON.stringify({ token: made.token, ...made.record }, null, 2));
    else session.line(made.token, '', about, 'It is shown this once: store it now (send it as Authorization: Bearer <token>, never in a URL).');
  });

  const ls = token.command('list').description('every API token, revoked ones too (never the secret)');
  jsonOption(ls).action(async (opts: { json?: boolean }) => {
    const all = await listApiTokens({ storage: session.storage() });
    session.print(
      {
        text:
          all.length === 0
            ? ['No API tokens yet. Make one: gnl token create <name> --scope read,start']
            : table(
                ['NAME', 'PREFIX', 'SCOPES', 'AGENTS', 'CREATED', 'BY', 'LAST USED', 'STATE'],
                all.map((t) => [
                  clean(t.name),
                  t.prefix,
                  t.scopes.join(','),
                  t.agents ? t.agents.map(clean).join(',') : 'all',
                  dateTime(t.createdAt),
                  clean(t.createdBy),
                  t.lastUsedAt ? dateTime(t.lastUsedAt) : 'never',
                  state(t),
                ]),
              ),
        data: all,
      },
      opts.json,
    );
  });

  const revoke = token
    .command('revoke')
    .description('revoke an API token: refused from its next request on, its open streams end')
    .argument('<name>', 'the token')
    .option('--by <who>', 'who revokes it (recorded; default: your OS account)')
    .option('--reason <text>', 'why (recorded)');
  jsonOption(revoke).action(async (name: string, opts: { by?: string; reason?: string; json?: boolean }) => {
    const done = await revokeApiToken({ storage: session.storage(), name, by: opts.by ?? processActor(), ...(opts.reason ? { reason: opts.reason } : {}) });
    session.print(
      {
        text: [
          done.alreadyRevoked
            ? `API token "${clean(done.token.name)}" was already ${state(done.token)}; nothing changed.`
            : `Revoked API token "${clean(done.token.name)}".`,
        ],
        data: done,
      },
      opts.json,
    );
  });

  const history = token
    .command('history')
    .description("a token's audit, oldest first: made, revoked, and every call with its route and status")
    .argument('<name>', 'the token')
    .option('--limit <n>', 'entries (1 to 1000, default 100)', wholeNumber(1, 1000));
  jsonOption(history).action(async (name: string, opts: { limit?: number; json?: boolean }) => {
    const entries = await apiTokenAuditTrail(name, { storage: session.storage(), limit: opts.limit ?? 100 });
    session.print(
      {
        text:
          entries.length === 0
            ? [`No API token "${clean(name)}", or nothing recorded for it.`]
            : table(
                ['AT', 'ACTION', 'BY', 'DETAIL'],
                entries.map((e) => [dateTime(e.at), e.action, clean(e.by), Object.keys(e.detail).length ? json(e.detail) : '']),
              ),
        data: entries,
      },
      opts.json,
    );
  });

  program
    .command('serve')
    .description('serve the HTTP API (docs/api.md) without the Studio: runs it starts are executed here')
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .option('--port <port>', 'the port (0: a free one)', wholeNumber(0, 65535), 4020)
    .option(
      '--lease-ms <ms>',
      "how long this server's claim on a run holds without a heartbeat (Postgres; default the executor's)",
      wholeNumber(100, 3_600_000),
    )
    .action(async (opts: { host: string; port: number; leaseMs?: number }) => {
      const storage = session.storage();
      const executor = new Executor({
        storage,
        registry: session.registry,
        ...(opts.leaseMs ? { leaseMs: opts.leaseMs } : {}),
        // A demo run started with a crash point (the crash tests) is armed here too.
        aroundInvocation: new CrashPointStore(storage).aroundInvocation,
        onEvent: (event: ExecutorEvent) => {
          if (event.type === 'error') session.note(`gnl serve: executor: ${event.where}: ${event.error}`);
        },
      }).start();
      let served: Awaited<ReturnType<typeof serveApi>>;
      try {
        served = await serveApi({ storage, registry: session.registry, executor, host: opts.host, port: opts.port });
      } catch (error) {
        await executor.stop();
        throw new CliError(`gnl serve could not listen on ${opts.host}:${opts.port}: ${(error as Error).message}`, undefined, { cause: error });
      }
      session.note(`gnl serve: the API on ${served.url}/api/v1 (its document: ${served.url}/api/v1/openapi.json), journal ${storage.kind}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      session.note('gnl serve: stopping (runs in flight stop at their next step boundary)');
      await served.close();
      await executor.stop({ graceMs: 10_000 });
    });
}
