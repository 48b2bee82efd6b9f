/** Where an export goes (gnl export, gnl memory export): stdout, or a new file of the user's only, never over an existing one. */
import { writeFile } from 'node:fs/promises';
import { CliError, EXIT } from './failures';
import type { CliSession } from './session';

/**
 * `text` to stdout when `out` is undefined (then `--json` is refused: the export itself is what stdout
 * prints), else to the new file `out`, 0600. The file written (the caller says so), or undefined for stdout.
 */
export async function writeExport(session: CliSession, text: string, out: string | undefined, json: boolean | undefined): Promise<string | undefined> {
  if (out === undefined) {
    if (json) throw new CliError('--json goes with --out: without it the export itself is what stdout prints.', EXIT.usage);
    session.io.stdout.write(text);
    return undefined;
  }
  await writeFile(out, text, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EEXIST') throw new CliError(`${out} exists: give a new file (an export never overwrites one).`, EXIT.conflict);
    throw error;
  });
  return out;
}
