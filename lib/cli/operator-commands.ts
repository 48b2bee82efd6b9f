/**
 * `gnl operators add|list|disable|sign-out|history`: the Studio's operator accounts (lib/accounts), every change
 * audited with who and when.
 */
import { Argument, type Command, Option } from 'commander';
import {
  addOperator,
  disableOperator,
  listOperators,
  type Operator,
  operatorAuditTrail,
  processActor,
  ROLES,
  type Role,
  setOperatorRole,
  signOutEverywhere,
} from '@/lib/accounts';
import { CliError } from './failures';
import { clean, dateTime, json, table } from './format';
import { jsonOption, wholeNumber } from './options';
import { readNewPassword } from './password-input';
import type { CliSession } from './session';

function status(operator: Operator): string {
  return operator.disabled
    ? `disabled ${dateTime(operator.disabled.at)} by ${clean(operator.disabled.by)}${operator.disabled.reason ? ` (${clean(operator.disabled.reason)})` : ''}`
    : 'active';
}

export function registerOperatorCommands(program: Command, session: CliSession): void {
  const operators = program.command('operators').description("the Studio's operator accounts: add, list, role, disable, sign-out, history");

  const add = operators
    .command('add')
    .description('add an operator account (the password is asked for, never taken from the command line)')
    .argument('<login>', 'sign-in name or e-mail (a-z, 0-9, . _ + @ -; case-insensitive)')
    .requiredOption('--name <name>', 'how the operator is shown beside their decisions')
    .option('--by <who>', 'who adds it (recorded; default: your OS account, os:<user>@<host>)')
    .addOption(new Option('--role <role>', 'what they may do (default: admin for the first account, approver after)').choices(ROLES))
    .addOption(new Option('--password <password>').hideHelp())
    .addHelpText(
      'after',
      '\nThe password (at least 12 characters) is read from a hidden prompt at a terminal, or from the first line of\n' +
        'stdin when stdin is not a terminal (printf \'%s\\n\' "$PASSWORD" | gnl operators add …). It is never taken from\n' +
        "the command line, where shell history and other users' ps would keep it. It is stored only as a salted scrypt hash.",
    );
  jsonOption(add).action(async (login: string, opts: { name: string; by?: string; role?: Role; password?: string; json?: boolean }) => {
    if (opts.password !== undefined) {
      throw new CliError(
        'passwords are never taken from the command line (shell history and ps keep them): type it at the prompt, or pipe it on stdin. Nothing was added.',
      );
    }
    const password = await readNewPassword(session.io);
    const operator = await addOperator({
      storage: session.storage(),
      login,
      name: opts.name,
      password,
      by: opts.by ?? processActor(),
      ...(opts.role ? { role: opts.role } : {}),
    });
    session.print(
      {
        text: [
          `Added operator ${clean(operator.login)} (${clean(operator.name)}, ${operator.role}), by ${clean(operator.createdBy)}. They can sign in to the Studio now.`,
        ],
        data: operator,
      },
      opts.json,
    );
  });

  const list = operators.command('list').description('list operator accounts, disabled ones included').option('--enabled', 'only accounts that can sign in');
  jsonOption(list).action(async (opts: { enabled?: boolean; json?: boolean }) => {
    const all = await listOperators({ storage: session.storage(), includeDisabled: !opts.enabled });
    session.print(
      {
        text:
          all.length === 0
            ? ['No operator accounts yet. Add one: gnl operators add <login> --name "<name>"']
            : table(
                ['LOGIN', 'NAME', 'ROLE', 'ADDED', 'BY', 'STATUS'],
                all.map((o) => [clean(o.login), clean(o.name), o.role, dateTime(o.createdAt), clean(o.createdBy), status(o)]),
              ),
        data: all,
      },
      opts.json,
    );
  });

  const disable = operators
    .command('disable')
    .description('disable an operator account for good: it can no longer sign in, and its Studio sessions end')
    .argument('<login>', 'the account')
    .requiredOption('--by <who>', 'who disables it (recorded)')
    .option('--reason <text>', 'why (recorded)');
  jsonOption(disable).action(async (login: string, opts: { by: string; reason?: string; json?: boolean }) => {
    const operator = await disableOperator(login, { storage: session.storage(), by: opts.by, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
    session.print({ text: [`Disabled operator ${clean(operator.login)} (${clean(operator.name)}): ${status(operator)}.`], data: operator }, opts.json);
  });

  const role = operators
    .command('role')
    .description(`give an account another role (${ROLES.join(', ')}); audited, and the last admin keeps the role`)
    .argument('<login>', 'the account')
    .addArgument(new Argument('<role>', 'viewer reads; approver also starts, decides and sends events; admin does everything').choices(ROLES))
    .option('--by <who>', 'who changes it (recorded; default: your OS account)')
    .option('--reason <text>', 'why (recorded)');
  jsonOption(role).action(async (login: string, given: Role, opts: { by?: string; reason?: string; json?: boolean }) => {
    const operator = await setOperatorRole({
      storage: session.storage(),
      login,
      role: given,
      by: opts.by ?? processActor(),
      ...(opts.reason ? { reason: opts.reason } : {}),
    });
    session.print({ text: [`Operator ${clean(operator.login)} is ${operator.role} now.`], data: operator }, opts.json);
  });

  const signOut = operators
    .command('sign-out')
    .description('end every Studio session of an operator, in every browser, at once (the account stays enabled: they can sign in again)')
    .argument('<login>', 'the account')
    .option('--by <who>', 'who signs them out (recorded; default: your OS account, os:<user>@<host>)');
  jsonOption(signOut).action(async (login: string, opts: { by?: string; json?: boolean }) => {
    const ended = await signOutEverywhere(login, { storage: session.storage(), by: opts.by ?? processActor() });
    session.print(
      {
        text: [
          `Signed operator ${clean(ended.operator.login)} (${clean(ended.operator.name)}) out everywhere: ${ended.sessions} session${ended.sessions === 1 ? '' : 's'} ended.`,
        ],
        data: ended,
      },
      opts.json,
    );
  });

  const history = operators
    .command('history')
    .description('the audit of account changes, newest first: who added, disabled or signed out which account, when')
    .argument('[login]', 'only this account')
    .option('--limit <n>', 'entries (1 to 1000, default 100)', wholeNumber(1, 1000));
  jsonOption(history).action(async (login: string | undefined, opts: { limit?: number; json?: boolean }) => {
    const entries = await operatorAuditTrail({
      storage: session.storage(),
      ...(login !== undefined ? { login } : {}),
      ...(opts.limit ? { limit: opts.limit } : {}),
    });
    session.print(
      {
        text:
          entries.length === 0
            ? ['No account changes recorded.']
            : table(
                ['AT', 'ACTION', 'LOGIN', 'BY', 'DETAIL'],
                entries.map((e) => [dateTime(e.at), e.action, clean(e.login), clean(e.by), Object.keys(e.detail).length ? json(e.detail) : '']),
              ),
        data: entries,
      },
      opts.json,
    );
  });
}
