/**
 * One invocation of the command line: where it writes, whether it prints JSON, and the storage it
 * opens on first use (storageFromEnv: DATABASE_URL, else the embedded journal in GNL_DATA_DIR or
 * .gnl/data), closed at the end so the data folder is given back and the process can exit.
 * `--help` and usage errors never open a journal. The agents it names and runs are the registry its entry
 * (main.ts) hands it: the deployment's.
 */
import type { AgentRegistry, Schedule } from '@/lib/agents';
import { closeStorage, type Storage, storageFromEnv } from '@/lib/durable/storage';
import { DEFAULT_WIDTH, redactedJson } from './format';

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadStream;
}

/** What a command prints: lines for people, a value for `--json`. */
export interface CommandResult {
  text: string[];
  data: unknown;
}

export class CliSession {
  private opened: Storage | undefined;
  /** Characters per value before cutting (`--full`: undefined, everything). */
  maxWidth: number | undefined = DEFAULT_WIDTH;

  private stdoutGone = false;

  constructor(
    readonly io: CliIo,
    /** The agents this command line starts, resumes and describes. */
    readonly registry: AgentRegistry,
    /** The schedules this deployment declares, checked when first asked (`gnl schedules` lists them beside the recorded ones). */
    readonly schedules: () => readonly Schedule[] = () => [],
  ) {
    // A reader that stopped reading (`gnl show … | head`) is not an error: stop writing, finish, close.
    io.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.stdoutGone = true;
    });
  }

  /** Commands run on this storage instead of the environment's (a program that embeds the command line; tests). */
  useStorage(storage: Storage): this {
    this.opened = storage;
    return this;
  }

  storage(): Storage {
    this.opened ??= storageFromEnv();
    return this.opened;
  }

  /** Human output (stdout). */
  line(...lines: string[]): void {
    if (this.stdoutGone) return;
    for (const line of lines) this.io.stdout.write(`${line}\n`);
  }

  /** Progress and hints (stderr, so that stdout stays the result). */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /** The code a command chose after printing its result (a --wait that ended on a diverged run: EXIT.conflict). Default: 0. */
  exitCode: number | undefined;

  print(result: CommandResult, asJson: boolean | undefined): void {
    if (asJson) this.line(redactedJson(result.data, 2) ?? 'null');
    else this.line(...result.text);
  }

  async close(): Promise<void> {
    const storage = this.opened;
    this.opened = undefined;
    if (storage) await closeStorage(storage).catch(() => undefined);
  }

  /** Ends the process now (an interrupted --wait), after giving the journal back. */
  async exit(code: number): Promise<never> {
    await this.close();
    process.exit(code);
  }
}
