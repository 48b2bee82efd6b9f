/**
 * The `gnl` command line's entry (bin/gnl.mjs runs it through tsx). Parses, runs one command, prints
 * its result or one line saying why it failed, gives the journal back, and exits with a code a script
 * can branch on (failures.ts). `io` defaults to the process's own streams; a program that embeds the
 * command line (the tests' in-process runner, tests/support/gnl-cli.ts) hands its own.
 */
import { registry, schedules } from '@/agents';
import { describeFailure, EXIT } from './failures';
import { buildProgram } from './program';
import { type CliIo, CliSession } from './session';

export async function main(argv: readonly string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }): Promise<number> {
  const session = new CliSession(io, registry, schedules);
  let code: number = EXIT.ok;
  try {
    await buildProgram(session).parseAsync([...argv]);
    code = session.exitCode ?? EXIT.ok;
  } catch (error) {
    const failure = describeFailure(error);
    if (failure.message) session.note(`gnl: ${failure.message}`);
    if (!failure.expected && process.env.GNL_DEBUG && error instanceof Error && error.stack) session.note(error.stack);
    code = failure.exitCode;
  } finally {
    await session.close();
  }
  return code;
}
