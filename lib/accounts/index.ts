/**
 * Operator accounts: the people who sign in to the Studio and make decisions, created and disabled with
 * the command line (`gnl operators …`), every change audited. Server-only: it opens the journal's
 * database (storageFromEnv), which a browser bundle must never import (tests/accounts-arrows.test.ts).
 *
 * For the Studio's sign-in: verifyOperator(login, password) → { ok, operator } or a failure to show;
 * a session stores `operator.id` and re-reads it with getOperator(id) (undefined or `disabled` ends it).
 */
export {
  addOperator,
  listOperators,
  findOperator,
  getOperator,
  countOperators,
  disableOperator,
  verifyOperator,
  operatorAuditTrail,
  processActor,
  type Operator,
  type OperatorAuditEntry,
  type OperatorAuditAction,
  type VerifyResult,
  type AccountsContext,
} from './operators';
export { loginSchema, passwordSchema, nameSchema, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './operator-input';
export { OperatorInputError, OperatorExistsError, UnknownOperatorError, OperatorDisabledError } from './errors';
