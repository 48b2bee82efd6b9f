import { JournalDataError } from './errors';

/**
 * The end of a fold over a closed union: a case left out does not compile, and a value no type allows
 * at run time (an event a newer version of GNL wrote) is a JournalDataError naming it, never skipped.
 */
export function unreachable(value: never): never {
  const type = (value as { type?: unknown } | null)?.type;
  throw new JournalDataError(`Unexpected ${JSON.stringify(type ?? value)}: this version of GNL does not know it; run the version that wrote it.`);
}
