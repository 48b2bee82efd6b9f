/**
 * The accounts layer's errors: GnlErrors (recognised across bundles with `isInstance`), each carrying
 * what the caller needs to act. A failed sign-in is not an error: verifyOperator returns it.
 */
import { GnlError } from '@/lib/durable';

function hasName<T>(name: string) {
  return (error: unknown): error is T => GnlError.isInstance(error) && error.name === name;
}

/** A request the accounts layer refuses (a malformed login, a short password, no `by`); nothing was written. */
export class OperatorInputError extends GnlError {
  override name = 'OperatorInputError';
  readonly problems: string[];
  constructor(args: { what: string; problems: string[] }) {
    super(`${args.what}: ${args.problems.join('; ')}`);
    this.problems = args.problems;
  }
  static override isInstance = hasName<OperatorInputError>('OperatorInputError');
}

/** An account with this login exists already (logins are unique, case-insensitively). */
export class OperatorExistsError extends GnlError {
  override name = 'OperatorExistsError';
  readonly login: string;
  readonly createdBy?: string;
  readonly createdAt?: Date;
  constructor(args: { login: string; createdBy?: string; createdAt?: Date }) {
    super(
      `An operator "${args.login}" exists already${args.createdBy ? ` (added by ${args.createdBy}${args.createdAt ? ` at ${args.createdAt.toISOString()}` : ''})` : ''}.`,
    );
    this.login = args.login;
    this.createdBy = args.createdBy;
    this.createdAt = args.createdAt;
  }
  static override isInstance = hasName<OperatorExistsError>('OperatorExistsError');
}

export class UnknownOperatorError extends GnlError {
  override name = 'UnknownOperatorError';
  readonly login: string;
  constructor(args: { login: string }) {
    super(`No operator "${args.login}" exists.`);
    this.login = args.login;
  }
  static override isInstance = hasName<UnknownOperatorError>('UnknownOperatorError');
}

/** The account was disabled already: by whom and when (disabling is done once). */
export class OperatorDisabledError extends GnlError {
  override name = 'OperatorDisabledError';
  readonly login: string;
  readonly disabledBy?: string;
  readonly disabledAt?: Date;
  constructor(args: { login: string; disabledBy?: string; disabledAt?: Date }) {
    super(`Operator "${args.login}" was already disabled by ${args.disabledBy ?? 'someone'}${args.disabledAt ? ` at ${args.disabledAt.toISOString()}` : ''}.`);
    this.login = args.login;
    this.disabledBy = args.disabledBy;
    this.disabledAt = args.disabledAt;
  }
  static override isInstance = hasName<OperatorDisabledError>('OperatorDisabledError');
}

/** An API token with this name exists already (names are unique). */
export class ApiTokenExistsError extends GnlError {
  override name = 'ApiTokenExistsError';
  readonly tokenName: string;
  constructor(args: { name: string }) {
    super(`An API token "${args.name}" exists already; revoked or not, a name is used once (the journal names what it did).`);
    this.tokenName = args.name;
  }
  static override isInstance = hasName<ApiTokenExistsError>('ApiTokenExistsError');
}

export class UnknownApiTokenError extends GnlError {
  override name = 'UnknownApiTokenError';
  readonly tokenName: string;
  constructor(args: { name: string }) {
    super(`No API token "${args.name}" exists.`);
    this.tokenName = args.name;
  }
  static override isInstance = hasName<UnknownApiTokenError>('UnknownApiTokenError');
}
