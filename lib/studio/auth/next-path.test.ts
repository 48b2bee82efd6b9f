import { describe, expect, it } from 'vitest';
import { safeNextPath } from './next-path';

/** Hostile `next` values (as the query string decodes them): each must lead to `/`. */
const HOSTILE_NEXT: readonly string[] = [
  '//evil.example/phish',
  '/\t/evil.example/phish',
  '/\n/evil.example/phish',
  '/\r/evil.example/phish',
  '/\r\nSet-Cookie: x=1',
  '\t//evil.example',
  ' /evil',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '/%2F/evil.example',
  '/%2f%2fevil.example',
  '/%5Cevil.example',
  'https://evil.example/',
  'http:evil.example',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '/\u2215\u2215evil.example',
  '/\u2044evil.example',
  '/\uFF0F\uFF0Fevil.example',
  '/\u3002evil',
  '/\u202Eevil',
  '/\u0000',
  '/\u007F',
  'evil.example',
  '',
  `/${'a'.repeat(3_000)}`,
];

describe('safeNextPath', () => {
  it.each(HOSTILE_NEXT.map((value) => [JSON.stringify(value).slice(0, 60), value]))('refuses %s', (_label, value) => {
    expect(safeNextPath(value)).toBe('/');
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 42, ['/runs'], { toString: () => '/runs' }]) expect(safeNextPath(value)).toBe('/');
  });

  it.each([
    ['/', '/'],
    ['/inbox', '/inbox'],
    ['/runs/support%3Aabc?tab=journal#seq-4', '/runs/support%3Aabc?tab=journal#seq-4'],
    ['/?status=waiting-approval&q=refund', '/?status=waiting-approval&q=refund'],
    ['/runs/../inbox', '/inbox'],
    ['/a/%2F', '/a/%2F'],
  ])('keeps the Studio path %s as %s', (value, expected) => {
    expect(safeNextPath(value)).toBe(expected);
  });

  it('every answer is a path the URL parser keeps on the origin it is resolved against', () => {
    for (const value of HOSTILE_NEXT) expect(new URL(safeNextPath(value), 'https://studio.example').origin).toBe('https://studio.example');
  });
});
