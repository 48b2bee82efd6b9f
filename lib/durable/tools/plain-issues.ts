/**
 * A schema's refusal in plain words. Zod's default messages speak to developers ("Too small: expected
 * string to have >=1 characters"); the people who read them here are operators filling a form, answering
 * a question or marking a call done. The common defaults are said plainly; any other message (a schema's
 * own, valibot's) is kept as it is.
 */
const PLAIN: readonly [RegExp, (...groups: string[]) => string][] = [
  [/^Too small: expected string to have >=1 characters?$/, () => 'is empty: write something'],
  [/^Too small: expected string to have >=(\d+) characters$/, (n) => `is too short: at least ${n} characters`],
  [/^Too big: expected string to have <=(\d+) characters$/, (n) => `is too long: at most ${n} characters`],
  [/^Too small: expected array to have >=(\d+) items?$/, (n) => `needs at least ${n} ${n === '1' ? 'item' : 'items'}`],
  [/^Too big: expected array to have <=(\d+) items$/, (n) => `has too many items: at most ${n}`],
  [/^Too small: expected number to be >=(-?[\d.e+]+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected number to be >(-?[\d.e+]+)$/, (n) => `must be greater than ${n}`],
  [/^Too big: expected number to be <=(-?[\d.e+]+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected number to be <(-?[\d.e+]+)$/, (n) => `must be less than ${n}`],
  [/^Invalid input: expected (\w+), received undefined$/, (type) => `is missing: give a ${type}`],
  [/^Invalid input: expected (\w+), received (\w+)$/, (type, got) => `must be a ${type}, not a ${got}`],
  [/^Expected number, received nan$/i, () => 'must be a number'],
];

export function plainIssueMessage(message: string): string {
  for (const [pattern, say] of PLAIN) {
    const match = pattern.exec(message);
    if (match) return say(...match.slice(1));
  }
  return message;
}
