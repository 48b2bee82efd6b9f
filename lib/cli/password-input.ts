/**
 * Reads a new password for `gnl operators add`, never from the command line (argv lands in shell
 * history and in every other user's `ps`): at a terminal, a hidden prompt asked twice; otherwise the
 * first line of stdin (`printf '%s\n' "$PASSWORD" | gnl operators add …`).
 */
import { CliError, EXIT } from './failures';

export async function readNewPassword(io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WritableStream }): Promise<string> {
  if (!io.stdin.isTTY) {
    const password = await firstLine(io.stdin);
    if (password === undefined || password === '')
      throw new CliError('no password on stdin: pipe it as the first line, or run at a terminal to be asked.', EXIT.usage);
    return password;
  }
  const password = await hiddenPrompt(io, 'Password (at least 12 characters): ');
  const again = await hiddenPrompt(io, 'The same password again: ');
  if (password !== again) throw new CliError('the two passwords differ; nothing was added.', EXIT.usage);
  return password;
}

async function firstLine(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end).replace(/\r$/, '');
  }
  return text.length > 0 ? text.replace(/\r$/, '') : undefined;
}

/** One line typed without echo (raw mode: each key arrives as typed; Enter ends, Ctrl-C aborts, backspace erases). */
function hiddenPrompt(io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WritableStream }, question: string): Promise<string> {
  const { stdin, stderr } = io;
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new CliError('interrupted; nothing was added.', 130));
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else if (char >= ' ') value += char;
      }
    };
    // Echo off before the question appears: what is typed after it is never shown.
    stdin.setRawMode(true);
    stderr.write(question);
    stdin.resume();
    stdin.on('data', onData);
  });
}
