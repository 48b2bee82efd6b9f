/**
 * The embedded journal's folder from the environment, in a module of its own (only node:path): the Studio's
 * session secret lives beside it, and the code that reads that secret must not load the journal's drivers.
 */
import path from 'node:path';

/**
 * GNL_DATA_DIR, or `.gnl/data` in the working directory when it is unset or empty (a `GNL_DATA_DIR=` line in
 * a .env file means unset; taken as given, an empty folder name would open an in-memory journal, gone when
 * the process ends).
 */
export function dataDirFromEnv(env: Record<string, string | undefined> = process.env): string {
  return env.GNL_DATA_DIR?.trim() || path.join(process.cwd(), '.gnl', 'data');
}
