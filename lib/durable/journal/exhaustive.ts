/**
 * The end of a fold over a closed union (event types, pending kinds, statuses): after every case is
 * handled the value is `never`, so a case added to the union and not to the fold is a compile error at
 * the call. Met at run time all the same (a row written by a newer version, a cast), it throws a
 * JournalDataError naming what it met instead of letting the fold fall through silently.
 *
 *   switch (event.type) { case 'run-start': …; …; default: return unreachable(event, 'run projection'); }
 */
import { JournalDataError } from '../errors';

export function unreachable(value: never, where = 'A fold'): never {
  throw new JournalDataError(`${where} met a case it does not know: ${describe(value)}.`);
}

function describe(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    for (const tag of ['type', 'kind', 'status'] as const) {
      const named = (value as Record<string, unknown>)[tag];
      if (typeof named === 'string') return `${tag} "${named}"`;
    }
    return 'an object without a type';
  }
  return typeof value === 'string' ? `"${value}"` : String(value);
}
