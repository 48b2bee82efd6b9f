/**
 * Roles on the command line (cli-roles.ts), on real journals: a command acting in an account's name is
 * refused past that account's role or when it is disabled; a service's name is recorded as given; and
 * every command of the program that takes --by is either in the permission table or checks its account
 * itself, so a new command cannot slip past the table.
 */
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { expect, it } from 'vitest';
import { addOperator, disableOperator } from '@/lib/accounts';
import { createAgentRegistry } from '@/lib/agents';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { CLI_PERMISSIONS, checkCliRole, commandPath } from './cli-roles';
import { EXIT } from './failures';
import { buildProgram } from './program';
import { CliSession } from './session';

const PASSWORD = 'correct horse battery';

/** Commands whose --by must be an enabled account, checked by the command itself (and audited there). */
const CHECK_THEIR_OWN = ['erase', 'memory export', 'memory erase', 'export'];

describeEachStorage('roles on the command line', (holder) => {
  it('refuses a viewer’s decision, an approver’s admin command and a disabled account; lets an admin, an approver and a service’s name act', async () => {
    const storage = holder.storage;
    await addOperator({ storage, login: 'root', name: 'Root', password: PASSWORD, by: 'os:test' });
    await addOperator({ storage, login: 'ada', name: 'Ada', password: PASSWORD, by: 'root' });
    await addOperator({ storage, login: 'vic', name: 'Vic', password: PASSWORD, by: 'root', role: 'viewer' });
    await addOperator({ storage, login: 'dan', name: 'Dan', password: PASSWORD, by: 'root' });
    await disableOperator('dan', { storage, by: 'root', reason: 'left' });

    const refused = (path: string, by: string) =>
      checkCliRole(path, by, storage).then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(await refused('approve', 'vic')).toMatchObject({ name: 'CliError', exitCode: EXIT.conflict, message: expect.stringContaining('vic (role viewer)') });
    expect(await refused('operators role', 'ada')).toMatchObject({ exitCode: EXIT.conflict, message: expect.stringContaining('gnl operators role --by ada') });
    expect(await refused('approve', 'dan')).toMatchObject({ exitCode: EXIT.conflict, message: expect.stringContaining('disabled') });
    for (const [path, by] of [
      ['approve', 'ada'],
      ['bulk cancel', 'ada'],
      ['operators role', 'root'],
      ['approve', 'billing-service'],
      ['event send', 'ada'],
    ] as const) {
      expect(await refused(path, by), `${path} --by ${by}`).toBeUndefined();
    }
  });
});

it('every command that takes --by is in the permission table or checks its account itself', () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() } as unknown as ConstructorParameters<typeof CliSession>[0];
  const program = buildProgram(new CliSession(io, createAgentRegistry([])));
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  const withBy = all(program)
    .filter((command) => command.options.some((option) => option.long === '--by'))
    .map(commandPath)
    .sort();
  expect(withBy.length).toBeGreaterThan(20);
  expect(withBy.filter((path) => !(path in CLI_PERMISSIONS) && !CHECK_THEIR_OWN.includes(path))).toEqual([]);
  // And the table names no command that is not there.
  expect(Object.keys(CLI_PERMISSIONS).filter((path) => !withBy.includes(path))).toEqual([]);
});
