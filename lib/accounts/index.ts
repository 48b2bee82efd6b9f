/**
 * Operator accounts: the people who sign in to the Studio and make decisions, created and disabled with
 * the command line (`gnl operators …`), every change audited. Server-only: it opens the journal's
 * database (storageFromEnv), which a browser bundle must never import (tests/accounts-arrows.test.ts).
 *
 * For the Studio's sign-in: verifyOperator(login, password) → { ok, operator } or a failure to show;
 * a session is a row of gnl.operator_sessions (sessions.ts), re-read with its operator by sessionOperator
 * on every request; signing out, `gnl operators sign-out` and disabling revoke it.
 */
export {
  addOperator,
  listOperators,
  findOperator,
  getOperator,
  countOperators,
  disableOperator,
  setOperatorRole,
  verifyOperator,
  operatorAuditTrail,
  processActor,
  type Operator,
  type OperatorAuditEntry,
  type OperatorAuditAction,
  type VerifyResult,
  type AccountsContext,
} from './operators';
export { auditRevealedExport, auditOperatorAct } from './export-audit';
export { eraseRunsAs, type EraseTarget } from './erasure-audit';
export { startOperatorSession, sessionOperator, endOperatorSession, signOutEverywhere, type SessionEndReason } from './sessions';
export { loginSchema, passwordSchema, nameSchema, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './operator-input';
export { OperatorInputError, OperatorExistsError, UnknownOperatorError, OperatorDisabledError, ApiTokenExistsError, UnknownApiTokenError } from './errors';
export {
  createApiToken,
  listApiTokens,
  revokeApiToken,
  authenticateApiToken,
  auditApiCall,
  apiTokenAuditTrail,
  apiTokenNameSchema,
  type ApiToken,
  type ApiTokenAuditEntry,
  type TokenCheck,
} from './api-tokens';
export {
  authorize,
  actorOf,
  permissionsOf,
  agentInScope,
  roleOf,
  PERMISSIONS,
  ROLES,
  type Permission,
  type Role,
  type Principal,
  type Authorization,
} from './authorize';
