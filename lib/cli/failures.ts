/**
 * How the command line fails: one readable line on stderr and an exit code a script can branch on.
 * Expected failures (bad input, an unknown run, a conflict, a journal another process holds) never
 * print a stack trace; an unexpected one says so and prints its stack only with GNL_DEBUG=1.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { CommanderError } from 'commander';
import { OperatorDisabledError, OperatorExistsError, OperatorInputError, UnknownOperatorError } from '@/lib/accounts';
import { AgentDefinitionError, AgentInputError, UnknownAgentError } from '@/lib/agents';
import { PriceFileError } from '@/lib/cost/price-file';
import {
  ApprovalRuleError,
  DecisionConflictError,
  EventRefusedError,
  ForkRefusedError,
  GnlError,
  RunTransferError,
  InvalidRunIdError,
  JournalDataError,
  RunBusyError,
  RunDivergedError,
  RunErasedError,
  RunRetiredError,
  WorkflowInputError,
} from '@/lib/durable';
import { DataDirLockedError } from '@/lib/durable/storage';
import { BulkActionError, MigrationRefusedError, RunNotResumableError, ScheduleActionError, WorkersNeedPostgresError } from '@/lib/executor';
import { shellQuote } from './format';

export const EXIT = {
  ok: 0,
  /** Something GNL did not expect (a bug, or a failure it cannot name). */
  unexpected: 1,
  /** Bad usage or input: an unknown agent or option, invalid JSON, a malformed login, a short password. */
  usage: 2,
  /** The run, call or operator named does not exist. */
  notFound: 3,
  /** Refused by the state of things: decided already (by whom), finished, not resumable, diverged, exists already. */
  conflict: 4,
  /** The journal cannot be used now: the embedded journal's folder is held by another process, or Postgres cannot be reached. */
  unavailable: 5,
  /** --wait gave up before the run settled (the run goes on). */
  timeout: 6,
} as const;

/** A failure the CLI itself names. */
export class CliError extends GnlError {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  static override isInstance = (error: unknown): error is CliError => GnlError.isInstance(error) && error.name === 'CliError';
}

export interface Failure {
  /** One line for stderr; empty when it was printed already (commander prints its own usage errors). */
  message: string;
  exitCode: number;
  expected: boolean;
}

/** The failures GNL names, each recognised by its class's isInstance (across bundles and installs), and the exit code it gives. */
const EXPECTED: readonly { is: (error: unknown) => error is GnlError; exitCode: number }[] = [
  { is: UnknownAgentError.isInstance, exitCode: EXIT.usage },
  { is: AgentInputError.isInstance, exitCode: EXIT.usage },
  // A bad schedule in the deployment (agents/schedules.ts), e.g. from GNL_DEMO_SCHEDULE_CRON.
  { is: AgentDefinitionError.isInstance, exitCode: EXIT.usage },
  { is: InvalidRunIdError.isInstance, exitCode: EXIT.usage },
  { is: OperatorInputError.isInstance, exitCode: EXIT.usage },
  { is: JournalDataError.isInstance, exitCode: EXIT.usage },
  { is: UnknownOperatorError.isInstance, exitCode: EXIT.notFound },
  { is: OperatorExistsError.isInstance, exitCode: EXIT.conflict },
  { is: OperatorDisabledError.isInstance, exitCode: EXIT.conflict },
  { is: RunDivergedError.isInstance, exitCode: EXIT.conflict },
  { is: WorkflowInputError.isInstance, exitCode: EXIT.usage },
  // A payload its schema refuses is bad input; an event for a run that ended, or for an agent's run, is refused.
  { is: (error: unknown): error is EventRefusedError => EventRefusedError.isInstance(error) && error.reason === 'invalid-payload', exitCode: EXIT.usage },
  { is: EventRefusedError.isInstance, exitCode: EXIT.conflict },
  // An erased run never runs again; a dropped run's id is not a new job (docs/erasure.md, docs/operations.md#retention).
  { is: RunErasedError.isInstance, exitCode: EXIT.conflict },
  { is: RunRetiredError.isInstance, exitCode: EXIT.conflict },
  { is: RunBusyError.isInstance, exitCode: EXIT.conflict },
  { is: RunNotResumableError.isInstance, exitCode: EXIT.conflict },
  { is: MigrationRefusedError.isInstance, exitCode: EXIT.conflict },
  { is: DecisionConflictError.isInstance, exitCode: EXIT.conflict },
  { is: ApprovalRuleError.isInstance, exitCode: EXIT.conflict },
  { is: ForkRefusedError.isInstance, exitCode: EXIT.conflict },
  // invalid-line: bad input (usage); unknown-run: not found (isUnknownRun); run-exists: refused.
  { is: RunTransferError.isInstance, exitCode: EXIT.conflict },
  { is: WorkersNeedPostgresError.isInstance, exitCode: EXIT.unavailable },
  { is: DataDirLockedError.isInstance, exitCode: EXIT.unavailable },
  { is: BulkActionError.isInstance, exitCode: EXIT.conflict },
  { is: ScheduleActionError.isInstance, exitCode: EXIT.usage },
  // A bad GNL_PRICES_FILE (docs/operations.md#cost): the file and the entry at fault.
  { is: PriceFileError.isInstance, exitCode: EXIT.usage },
];

const expectedKind = (error: unknown) => EXPECTED.find((kind) => kind.is(error));

/** The journal and the executor layer say "unknown run" through their conflict errors' reason. */
function isUnknownRun(error: GnlError): boolean {
  return (
    (DecisionConflictError.isInstance(error) ||
      RunNotResumableError.isInstance(error) ||
      MigrationRefusedError.isInstance(error) ||
      ForkRefusedError.isInstance(error) ||
      RunTransferError.isInstance(error) ||
      EventRefusedError.isInstance(error)) &&
    error.reason === 'unknown-run'
  );
}

/** A bulk action's bad input is a usage error, an unknown preview not found; the rest (applied already, expired, …) refusals. */
function bulkExitCode(error: GnlError): number | undefined {
  if (!BulkActionError.isInstance(error)) return undefined;
  return error.reason === 'invalid' ? EXIT.usage : error.reason === 'unknown-preview' ? EXIT.notFound : EXIT.conflict;
}

// Driver errors that mean "the database is not there" (postgres.js keeps Node's codes; 28P01/3D000/57P03 are Postgres SQLSTATEs).
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  '28P01',
  '28000',
  '3D000',
  '57P03',
]);

export function describeFailure(error: unknown): Failure {
  if (error instanceof CommanderError) return { message: '', exitCode: error.exitCode === 0 ? EXIT.ok : EXIT.usage, expected: true };
  if (CliError.isInstance(error)) return { message: oneLine(error.message), exitCode: error.exitCode, expected: true };
  const gnl = findInChain(error, (e) => expectedKind(e) !== undefined) as GnlError | undefined;
  if (gnl) {
    const unknownSchedule = ScheduleActionError.isInstance(gnl) && gnl.reason === 'unknown-schedule';
    const badFile = RunTransferError.isInstance(gnl) && gnl.reason === 'invalid-line';
    const exitCode =
      isUnknownRun(gnl) || unknownSchedule ? EXIT.notFound : badFile ? EXIT.usage : (bulkExitCode(gnl) ?? expectedKind(gnl)?.exitCode ?? EXIT.unexpected);
    return { message: oneLine(explain(gnl)), exitCode, expected: true };
  }
  const unreachable = findInChain(error, (e) => UNREACHABLE.has(String((e as { code?: unknown }).code)));
  if (unreachable) {
    return {
      message: oneLine(`cannot reach the journal's Postgres (DATABASE_URL): ${(unreachable as Error).message}. Is the server running, and is the URL right?`),
      exitCode: EXIT.unavailable,
      expected: true,
    };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    message: oneLine(`unexpected error: ${message}${process.env.GNL_DEBUG ? '' : ' (GNL_DEBUG=1 prints the stack)'}`),
    exitCode: EXIT.unexpected,
    expected: false,
  };
}

function explain(error: GnlError): string {
  if (DataDirLockedError.isInstance(error)) {
    const { dataDir, holder, holderVisible } = error;
    const what = holder && holderVisible ? commandLineOf(holder.pid) : undefined;
    const elsewhere = holder && !holderVisible && holder.host === hostname() ? ' in another PID namespace' : '';
    const who = holder ? `process ${holder.pid} on ${holder.host}${elsewhere}${what ? ` (${what})` : ''} since ${holder.since}` : 'another process';
    return (
      `the embedded journal at ${dataDir} is in use by ${who}. ` +
      'It serves one process at a time, and the Studio (npm run studio) holds it while it runs: stop that process first, or let both share Postgres (set DATABASE_URL).'
    );
  }
  if (RunDivergedError.isInstance(error)) {
    const { runId } = error;
    return `${error.message}${runId ? ` If its agent changed, give the old run up: gnl abandon ${shellQuote(runId)} --by … --reason …, or gnl restart ${shellQuote(runId)} --by … (its recorded side effects answer from the old record; --preview shows each).` : ''}`;
  }
  if (DecisionConflictError.isInstance(error) && error.reason === 'run-executing') {
    const { runId } = error;
    return `${error.message} Once it waits, gnl show ${shellQuote(runId)} lists what it asks.`;
  }
  return error.message;
}

/** The characters of a holder's command line shown. */
const COMMAND_SHOWN = 120;

/** What a local process runs, to name the holder of a data folder ("next-server", "node … gnl.mjs …"); best effort. */
function commandLineOf(pid: number): string | undefined {
  try {
    // The program by its name (Node installed under a long folder must not push the script out of view).
    const [program, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    if (!program) return undefined;
    const whole = [path.basename(program), ...args].join(' ');
    if (whole.length <= COMMAND_SHOWN) return whole;
    // Too long: the paths by their last name (a script under a long folder must not be cut off either), then cut.
    const command = [path.basename(program), ...args.map((arg) => (path.isAbsolute(arg) ? `…/${path.basename(arg)}` : arg))].join(' ');
    return command.length > COMMAND_SHOWN ? `${command.slice(0, COMMAND_SHOWN)}…` : command;
  } catch {
    return undefined;
  }
}

/** The error, or one in its cause chain or inside an AggregateError. */
function findInChain(error: unknown, is: (e: unknown) => boolean): unknown {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (is(e)) return e;
    if (e instanceof AggregateError) queue.push(...e.errors);
    queue.push((e as { cause?: unknown }).cause);
  }
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
