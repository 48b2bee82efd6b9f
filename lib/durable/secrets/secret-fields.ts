/**
 * Which values are secrets, and how they look when shown. Pure and browser-safe (no import at all):
 * the journal's encryption (secret-journal.ts) and every display (the Studio's wire, the CLI) use the
 * same rules, so what is encrypted in the journal is also what is never shown.
 *
 * A value is a secret when its field name is in the redaction list (any depth, case-insensitive, `_`
 * and `-` ignored; names of 5+ characters also match as a suffix: `clientSecret`, `accessToken`,
 * `x-api-key`), or when it is a whole string that looks like a credential (looksLikeApiKey: known
 * prefixes such as sk-, ghp_, xoxb-, AKIA, a JWT, `Bearer <token>`). Plain high-entropy strings are
 * NOT treated as secrets: tool call ids, hashes and idempotency keys look exactly like them.
 */

/** What every display shows instead of a secret (and instead of an encrypted envelope). */
export const REDACTED = '•••• redacted';

/** The key of the journal's encrypted envelope: `{ "$gnl:enc": "v1:<keyId>:<base64 iv|tag|ciphertext>" }`. */
export const ENVELOPE_KEY = '$gnl:enc';

/** The default redaction list (field names). `GNL_SECRET_FIELDS` (comma-separated) adds names to it. */
export const DEFAULT_SECRET_FIELDS: readonly string[] = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apiKey',
  'accessKey',
  'privateKey',
  'authorization',
  'cookie',
  'credential',
  'credentials',
  'cardNumber',
  'cvv',
  'cvc',
  'pin',
  'ssn',
];

/** A field name as compared: lower case, without `_`, `-`, `.` and spaces. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

export interface SecretFieldOptions {
  /** Replaces the default list. */
  fields?: readonly string[];
  /** Added to the list (the default one unless `fields` is given). */
  extraFields?: readonly string[];
}

/** The field rules, compiled once. */
export class SecretFields {
  private readonly exact = new Set<string>();
  private readonly suffixes: string[] = [];
  /** Matches, in JSON text, a field name that may be a secret (`"apiKey":`, also escaped inside a JSON string). Over-inclusive. */
  readonly namePattern: RegExp;
  /** The same names as the first item of a JSON array (`["apiKey",`): a Map's entry as the journal's codec stores it. Over-inclusive. */
  readonly pairKeyPattern: RegExp;

  constructor(options: SecretFieldOptions = {}) {
    const names = [...(options.fields ?? DEFAULT_SECRET_FIELDS), ...(options.extraFields ?? [])].map(normalize).filter((n) => n.length > 0);
    for (const name of new Set(names)) {
      this.exact.add(name);
      if (name.length >= 5) this.suffixes.push(name);
    }
    const alternatives = [...this.exact].map((name) => [...name].map(escapeRegExp).join('[-_. ]?'));
    this.namePattern = alternatives.length ? new RegExp(`(?:${alternatives.join('|')})\\\\?":`, 'i') : /$^/;
    this.pairKeyPattern = alternatives.length ? new RegExp(`\\[\\\\?"[^"\\\\]*(?:${alternatives.join('|')})\\\\?",`, 'i') : /$^/;
  }

  isSecretField(name: string): boolean {
    const n = normalize(name);
    if (this.exact.has(n)) return true;
    for (const suffix of this.suffixes) if (n.endsWith(suffix)) return true;
    return false;
  }
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|]/.test(char) ? `\\${char}` : char;
}

const KEY_PATTERNS: readonly RegExp[] = [
  /^sk-[A-Za-z0-9_-]{20,}$/, // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-)
  /^(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}$/, // Stripe secret and restricted keys
  /^gh[pousr]_[A-Za-z0-9]{30,}$/, // GitHub tokens
  /^github_pat_[A-Za-z0-9_]{30,}$/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/, // Slack
  /^(?:AKIA|ASIA)[A-Z0-9]{16}$/, // AWS access key ids
  /^AIza[0-9A-Za-z_-]{35}$/, // Google API keys
  /^glpat-[A-Za-z0-9_-]{20,}$/, // GitLab
  /^Bearer\s+[A-Za-z0-9._~+/-]{20,}=*$/i, // an Authorization header's bearer token
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/, // a JWT
  /^-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Over-inclusive pre-check for the value patterns, on JSON text (each value starts after a quote). */
export const KEY_VALUE_HINT = /"(?:sk-|sk_|rk_|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA|AIza|glpat-|Bearer\s|eyJ|-----BEGIN)/i;

/** A whole string that looks like a credential. Known shapes only, so that ids and hashes are left alone. */
export function looksLikeApiKey(value: string): boolean {
  if (value.length < 16 || value.length > 8192) return false;
  const text = value.trim();
  for (const pattern of KEY_PATTERNS) if (pattern.test(text)) return true;
  return false;
}

/** An object whose one own enumerable key is ENVELOPE_KEY, holding a string (asked of every node a load walks: no key array made). */
export function isEnvelope(value: unknown): value is { [ENVELOPE_KEY]: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (!Object.hasOwn(value, ENVELOPE_KEY) || typeof (value as Record<string, unknown>)[ENVELOPE_KEY] !== 'string') return false;
  let keys = 0;
  for (const key in value) if (Object.hasOwn(value, key) && ++keys > 1) return false;
  return keys === 1;
}

/** The display rules: field names from GNL_SECRET_FIELDS (read by whoever calls this, with its env) on top of the defaults. */
export function secretFieldsFromEnv(env: Record<string, string | undefined>): SecretFields {
  const extra = (env.GNL_SECRET_FIELDS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return new SecretFields({ extraFields: extra });
}

/**
 * JSON.stringify's replacer that redacts: a secret field's value, a credential-looking string, an
 * encrypted envelope, and secrets inside a string that holds JSON (a model's tool call arguments)
 * all become REDACTED. Compose it with another replacer by calling that one first.
 */
export function redactingReplacer(fields: SecretFields): (key: string, value: unknown) => unknown {
  return (key, value) => redactOne(fields, key, value);
}

function redactOne(fields: SecretFields, key: string, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (key !== '' && fields.isSecretField(key)) return REDACTED;
  if (typeof value === 'string') return redactString(fields, value);
  if (isEnvelope(value)) return REDACTED;
  // A Map: its entries are named by their keys as an object's members are (a live Map, or the journal
  // codec's `{ $gnl: 'map', v: [[key, value], …] }` in an export): a secret-named key's value is redacted.
  if (value instanceof Map) return new Map([...value].map(([k, item]) => [k, redactEntry(fields, k, item)]));
  if (isEncodedMap(value)) return { ...value, v: value.v.map((pair) => (Array.isArray(pair) ? [pair[0], redactEntry(fields, pair[0], pair[1])] : pair)) };
  return value;
}

function redactEntry(fields: SecretFields, key: unknown, item: unknown): unknown {
  return typeof key === 'string' && item !== null && item !== undefined && fields.isSecretField(key) ? REDACTED : item;
}

/** The journal codec's form of a Map (json-codec.ts): `{ $gnl: 'map', v: [[key, value], …] }`. */
function isEncodedMap(value: unknown): value is { $gnl: 'map'; v: unknown[] } {
  return typeof value === 'object' && value !== null && (value as { $gnl?: unknown }).$gnl === 'map' && Array.isArray((value as { v?: unknown }).v);
}

function redactString(fields: SecretFields, value: string): string {
  if (looksLikeApiKey(value)) return REDACTED;
  const first = value.trimStart()[0];
  if ((first === '{' || first === '[') && (fields.namePattern.test(value) || KEY_VALUE_HINT.test(value))) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return value; // not JSON after all: shown as it is (a credential-looking whole string was caught above)
    }
    return JSON.stringify(parsed, redactingReplacer(fields));
  }
  return value;
}

/** A copy of `value` with every secret replaced by REDACTED (for JSON output: Dates become ISO strings). */
export function redactSecrets<T>(value: T, fields: SecretFields): T {
  const text = JSON.stringify(value, redactingReplacer(fields));
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}
