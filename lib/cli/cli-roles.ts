/**
 * Roles on the command line. Whoever runs gnl holds the journal's credentials, so the CLI cannot stop
 * them from writing; what it keeps is the Studio's rule for the names it records: a command that acts in
 * the name of an operator account (`--by <login>`) is refused when that account's role does not allow it
 * (lib/accounts/authorize.ts, the one authorization module) or the account is disabled. A `--by` that
 * names no account is a service's name and is recorded as given (docs/cli.md). Commands whose `--by` must
 * be an account (erase, memory export and erase, export --reveal-secrets) check that themselves.
 */
import type { Command } from 'commander';
import { authorize, findOperator, type Permission } from '@/lib/accounts';
import type { Storage } from '@/lib/durable/storage';
import { CliError, EXIT } from './failures';

/** What each command that acts in someone's name needs, by its path ("bulk cancel"). Read-only commands take no --by. */
export const CLI_PERMISSIONS: Readonly<Record<string, Permission>> = {
  start: 'start',
  'workflow start': 'start',
  approve: 'decide',
  reject: 'decide',
  resolve: 'decide',
  provide: 'decide',
  resume: 'decide',
  cancel: 'decide',
  abandon: 'decide',
  restart: 'decide',
  fork: 'decide',
  migrate: 'decide',
  'event send': 'events',
  'schedules pause': 'decide',
  'schedules resume': 'decide',
  'schedules run-now': 'decide',
  'bulk cancel': 'decide',
  'bulk resume': 'decide',
  'bulk retry': 'decide',
  'bulk approve': 'decide',
  'bulk migrate': 'decide',
  'operators add': 'admin',
  'operators disable': 'admin',
  'operators role': 'admin',
  'operators sign-out': 'admin',
  'token create': 'admin',
  'token revoke': 'admin',
  import: 'admin',
};

/** The command's path below the program: "approve", "bulk cancel". */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Refuses `by` for the command at `path` when it names an account whose role does not allow it, or a disabled one. */
export async function checkCliRole(path: string, by: string | undefined, storage: Storage): Promise<void> {
  const permission = CLI_PERMISSIONS[path];
  if (!permission || by === undefined) return;
  const account = await findOperator(by, { storage });
  if (!account) return; // a service's name, recorded as given
  if (account.disabled) throw new CliError(`${by} is a disabled operator account: it does not act (gnl ${path}).`, EXIT.conflict);
  const allowed = authorize({ kind: 'operator', login: account.login, role: account.role }, permission);
  if (!allowed.ok) throw new CliError(`${allowed.message} (gnl ${path} --by ${by}); an admin can change the role: gnl operators role.`, EXIT.conflict);
}
