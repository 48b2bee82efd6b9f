/**
 * How the command line names a failure: each GNL error class gives its exit code by its class's
 * isInstance (so a copy of the class from another bundle counts too), found in a cause chain or an
 * AggregateError; "unknown run" reasons are not found (3); anything else is unexpected (1).
 */
import { describe, expect, it } from 'vitest';
import { OperatorExistsError, OperatorInputError } from '@/lib/accounts';
import { UnknownAgentError } from '@/lib/agents';
import { DecisionConflictError, GnlError, InvalidRunIdError, JournalDataError, RunBusyError, RunErasedError, RunRetiredError } from '@/lib/durable';
import { RunNotResumableError, WorkersNeedPostgresError } from '@/lib/executor';
import { CliError, describeFailure, EXIT } from './failures';

/** What an error of another bundle's copy of GNL looks like here: the shared marker and the class name, another class. */
function fromAnotherBundle<T extends Error>(error: T): Error {
  const copy = Object.assign(new Error(error.message), { ...error, name: error.name });
  Object.defineProperty(copy, Symbol.for('gnl.error'), { value: true });
  return copy;
}

describe('a failure on the command line', () => {
  it('gives each GNL error its exit code, expected, on one line', () => {
    const cases: [Error, number][] = [
      [new UnknownAgentError({ agentName: 'x', known: ['support'] }), EXIT.usage],
      [new InvalidRunIdError('runId is empty.'), EXIT.usage],
      [new OperatorInputError({ what: 'add', problems: ['login: too short'] }), EXIT.usage],
      [new JournalDataError('bad\noutput'), EXIT.usage],
      [new OperatorExistsError({ login: 'alice' }), EXIT.conflict],
      [new RunBusyError({ runId: 'r' }), EXIT.conflict],
      [new DecisionConflictError({ runId: 'r', toolCallId: 'c', reason: 'already-decided', decidedBy: 'bob' }), EXIT.conflict],
      [new RunNotResumableError({ runId: 'r', reason: 'completed' }), EXIT.conflict],
      [new RunErasedError('r', { at: new Date(0), by: 'dpo@acme', reason: 'request #1' }), EXIT.conflict],
      [new RunRetiredError({ runId: 'r', endedAs: 'completed', droppedAt: new Date(0), droppedBy: 'job' }), EXIT.conflict],
      [new WorkersNeedPostgresError(), EXIT.unavailable],
    ];
    for (const [error, exitCode] of cases) {
      expect(describeFailure(error), error.name).toEqual({ message: error.message.replace(/\s*\n\s*/g, ' '), exitCode, expected: true });
    }
  });

  it('says "not found" for an unknown run, whichever layer says it', () => {
    expect(describeFailure(new DecisionConflictError({ runId: 'r', toolCallId: 'c', reason: 'unknown-run' })).exitCode).toBe(EXIT.notFound);
    expect(describeFailure(new RunNotResumableError({ runId: 'r', reason: 'unknown-run' })).exitCode).toBe(EXIT.notFound);
  });

  it('recognises a GNL error from another bundle, in a cause chain, or in an AggregateError', () => {
    const busy = fromAnotherBundle(new RunBusyError({ runId: 'r' }));
    expect(busy instanceof RunBusyError).toBe(false);
    expect(describeFailure(busy)).toMatchObject({ exitCode: EXIT.conflict, expected: true });
    expect(describeFailure(new Error('wrapped', { cause: new WorkersNeedPostgresError() })).exitCode).toBe(EXIT.unavailable);
    expect(describeFailure(new AggregateError([new Error('x'), new UnknownAgentError({ agentName: 'x', known: [] })])).exitCode).toBe(EXIT.usage);
    expect(describeFailure(fromAnotherBundle(new CliError('--wait timed out', EXIT.timeout)))).toMatchObject({ exitCode: EXIT.timeout, expected: true });
  });

  it('calls anything else unexpected, a GNL error of no named kind and an error that only looks like one by its name included', () => {
    expect(describeFailure(new GnlError('something broke'))).toMatchObject({ exitCode: EXIT.unexpected, expected: false });
    expect(describeFailure(Object.assign(new Error('Run "r" is executing elsewhere'), { name: 'RunBusyError' }))).toMatchObject({
      exitCode: EXIT.unexpected,
      expected: false,
    });
    expect(describeFailure('a string')).toMatchObject({ exitCode: EXIT.unexpected, expected: false });
  });
});
