/**
 * Where to go after signing in (`/sign-in?next=…`): a path of this Studio, or `/`. Pure.
 *
 * Browsers are generous with what they take for a path: they drop tabs and newlines inside a URL
 * (`/\t/evil.example` becomes `//evil.example`, another host), read `\` as `/`, and turn an encoded or
 * look-alike slash into whatever the server makes of it. So a `next` is refused outright if it holds
 * anything a path of this Studio never does (control characters, whitespace, backslashes, non-ASCII),
 * then parsed against a placeholder origin: it must stay on that origin, and what is returned is the
 * parsed path (percent-encoded, one leading slash), so the Location header says exactly where the
 * browser will go. Anything else is `/`.
 */
const PLACEHOLDER_ORIGIN = 'http://studio.invalid';
const MAX_LENGTH = 2_048;
/** Printable ASCII but space and backslash: all a path, query or fragment of the Studio needs. */
const PATH_CHARACTERS = /^[!-[\]-~]+$/;

export function safeNextPath(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_LENGTH || !PATH_CHARACTERS.test(value)) return '/';
  if (!value.startsWith('/') || value.startsWith('//')) return '/';
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return '/';
  }
  if (url.origin !== PLACEHOLDER_ORIGIN || url.pathname.startsWith('//') || /%2f|%5c/i.test(url.pathname.slice(0, 4))) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}
