/** Option parsers and the options several commands share. Parsers throw commander's InvalidArgumentError: a usage error, exit 2. */
import { type Command, InvalidArgumentError } from 'commander';
import { CliError, EXIT } from './failures';

export function wholeNumber(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`Expected a whole number from ${min} to ${max}.`);
    }
    return value;
  };
}

export function seconds(raw: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new InvalidArgumentError('Expected a number of seconds above 0.');
  return value * 1000;
}

/** `--at` of `gnl resume`: an ISO 8601 date-time with a zone (Z or ±hh:mm), e.g. 2026-12-02T09:00:00Z. */
export function instant(raw: string): Date {
  const value = raw.trim();
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError('Expected an ISO 8601 date-time with a zone, e.g. 2026-12-02T09:00:00Z or 2026-12-02T10:00:00+01:00.');
  }
  return date;
}

/** `--output` of `gnl resolve`: any JSON value. */
export function parseJsonOption(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new CliError(`${name} is not valid JSON (${(error as Error).message}). Quote it for the shell: ${name} '{"ok":true}'`, EXIT.usage);
  }
}

export function jsonOption(command: Command): Command {
  return command.option('--json', 'print the result as JSON (for scripts)');
}

export function byOption(command: Command, what: string): Command {
  return command.requiredOption('--by <who>', `who ${what} (recorded: an operator's login or a service name)`);
}

export function waitOptions(command: Command): Command {
  return command
    .option(
      '--wait',
      'stay until the run settles (waits for people, completes, fails, is canceled), printing its events; on the embedded journal this process executes it',
    )
    .option('--timeout <seconds>', 'with --wait: give up after this long (exit 6; the run goes on)', seconds);
}
