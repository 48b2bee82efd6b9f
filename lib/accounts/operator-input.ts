/**
 * What an operator account accepts, checked with zod at the edge (the CLI and the Studio call the same
 * functions): a login, a display name, a password, and who makes the change.
 */
import { z } from 'zod';
import { ROLES } from './authorize';
import { OperatorInputError } from './errors';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * A sign-in name or an e-mail address: 2 to 254 characters of a-z, 0-9 and `. _ + @ -`, starting and
 * ending with a letter or digit. Case-insensitive: stored and compared lower-case.
 */
export const loginSchema = z
  .string({ error: 'login: a string' })
  .trim()
  .toLowerCase()
  .min(2, 'login: at least 2 characters')
  .max(254, 'login: at most 254 characters')
  .regex(/^[a-z0-9](?:[a-z0-9._+@-]*[a-z0-9])?$/, 'login: letters, digits and . _ + @ - only, starting and ending with a letter or digit');

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const nameSchema = z
  .string({ error: 'name: a string' })
  .trim()
  .min(1, 'name: say how the operator is shown (a display name)')
  .max(100, 'name: at most 100 characters')
  .refine((name) => !CONTROL.test(name), 'name: no control characters');

/** Counted in characters (code points), not UTF-16 units; never trimmed. */
export const passwordSchema = z
  .string({ error: 'password: a string' })
  .refine((password) => [...password].length >= MIN_PASSWORD_LENGTH, `password: at least ${MIN_PASSWORD_LENGTH} characters`)
  .refine((password) => [...password].length <= MAX_PASSWORD_LENGTH, `password: at most ${MAX_PASSWORD_LENGTH} characters`);

export const bySchema = z.string({ error: 'by: a string' }).trim().min(1, 'by: say who makes the change').max(200, 'by: at most 200 characters');

export const reasonSchema = z.string().trim().max(4000, 'reason: at most 4000 characters').optional();

export const addOperatorSchema = z.object({
  login: loginSchema,
  name: nameSchema,
  password: passwordSchema,
  by: bySchema,
  role: z.enum(ROLES, { error: `role: one of ${ROLES.join(', ')}` }).optional(),
});
export const disableOperatorSchema = z.object({ login: loginSchema, by: bySchema, reason: reasonSchema });

/** Parses or throws OperatorInputError listing every problem (never echoing a password). */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new OperatorInputError({ what, problems: parsed.error.issues.map((issue) => issue.message) });
}
