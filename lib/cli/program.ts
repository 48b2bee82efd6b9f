/** The `gnl` command tree (commander): every command, its options and help. Actions live beside their concern. */
import { Command } from 'commander';
import { registerBulkCommands } from './bulk-commands';
import { registerDecisionCommands } from './decision-commands';
import { checkCliRole, commandPath } from './cli-roles';
import { EXIT } from './failures';
import { registerMemoryCommands } from './memory-commands';
import { registerMigrateCommand } from './migrate-command';
import { registerForkCommand } from './fork-command';
import { registerOperatorCommands } from './operator-commands';
import { registerTokenCommands } from './token-commands';
import { registerReadCommands } from './read-commands';
import { registerEraseCommands } from './erase-commands';
import { registerRetentionCommands } from './retention-commands';
import { registerRunCommands } from './run-commands';
import { registerScheduleCommands } from './schedule-commands';
import { registerTransferCommands } from './transfer-commands';
import { registerWorkflowCommands } from './workflow-commands';
import type { CliSession } from './session';

// A JSON import, so the version travels with the code when it is bundled (the tests' child bundles).
import packageJson from '@/package.json' with { type: 'json' };

const { version } = packageJson;

const ABOUT = `
The journal: Postgres when DATABASE_URL is set, else the embedded journal in GNL_DATA_DIR (default .gnl/data).
The embedded journal serves one process at a time: while the Studio runs on it, use Postgres or stop the Studio.

Examples:
  gnl start support --prompt "Customer c_42 wants a refund for order o_17" --wait
  gnl list --status waiting-approval
  gnl show support:1b2c…
  gnl approve support:1b2c… call-2-issueRefund --by alice@example.com
  gnl resume support:1b2c… --by alice@example.com --wait
  gnl workflow start support-flow --input '{"customerId":"c_42","message":"I want a refund"}'
  gnl event send support-flow:9d3e… customer-reply --payload '{"text":"Thanks!"}' --by desk
  gnl tree support-flow:9d3e…
  gnl schedules
  gnl export support:1b2c… --out run.jsonl        # secrets redacted; gnl import run.jsonl [--as <runId>] elsewhere
  gnl bulk cancel --status waiting-approval --agent support --older-than 2h --by alice@example.com   # a dry run; then --yes --reason …

Exit codes: ${EXIT.ok} done · ${EXIT.unexpected} unexpected error · ${EXIT.usage} bad usage or input · ${EXIT.notFound} not found · ${EXIT.conflict} refused (decided already, finished, diverged…) · ${EXIT.unavailable} journal unavailable (folder held by another process, Postgres unreachable) · ${EXIT.timeout} --wait timed out`;

export function buildProgram(session: CliSession): Command {
  const program = new Command('gnl')
    .description("GNL: durable AI SDK agents. Start runs, follow them, decide what waits for a person; manage the Studio's operator accounts.")
    .version(version, '-V, --version')
    .configureOutput({
      writeOut: (text) => session.io.stdout.write(text),
      writeErr: (text) => session.io.stderr.write(text),
      // One line, like every other failure: commander's message and where the usage is.
      outputError: (text, write) => write(`gnl: ${text.replace(/^error: /, '').trim()} (--help for usage)\n`),
    })
    .addHelpText('after', ABOUT)
    .exitOverride();
  registerRunCommands(program, session);
  registerReadCommands(program, session);
  registerDecisionCommands(program, session);
  registerForkCommand(program, session);
  registerOperatorCommands(program, session);
  registerTokenCommands(program, session);
  registerScheduleCommands(program, session);
  registerMigrateCommand(program, session);
  registerBulkCommands(program, session);
  registerTransferCommands(program, session);
  registerRetentionCommands(program, session);
  registerEraseCommands(program, session);
  registerWorkflowCommands(program, session);
  registerMemoryCommands(program, session);
  // A command acting in an operator account's name is refused past that account's role (cli-roles.ts).
  program.hook('preAction', async (_program, action) => {
    const by = (action.opts() as { by?: unknown }).by;
    await checkCliRole(commandPath(action), typeof by === 'string' ? by : undefined, session.storage());
  });
  return program;
}
