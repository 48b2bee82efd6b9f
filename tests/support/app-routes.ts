/**
 * The Studio's surface, read from the app/ folder the way Next reads it: every page (page.tsx), every
 * route handler (route.ts), every module of server actions ('use server' at its top). The security tests
 * (lib/studio/auth/security-routes.test.ts, e2e/studio/security.spec.ts) walk these lists, so a page, route
 * or action added later is checked without anyone remembering to list it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, sourceFiles } from './source-imports';

export interface AppRoute {
  kind: 'page' | 'route';
  /** Relative to the repository root. */
  file: string;
  /** The URL pattern, e.g. `/runs/[runId]` (route groups removed). */
  pattern: string;
  /** Its dynamic segments' names, in order. */
  params: string[];
}

const PAGE = /^page\.(tsx|ts|jsx|js|mdx)$/;
const ROUTE = /^route\.(ts|js)$/;
/** Files Next serves as routes of their own (metadata routes) that the checks here do not cover yet. */
const METADATA = /^(icon|apple-icon|opengraph-image|twitter-image|sitemap|robots|manifest)\.\w+$/;

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

function patternOf(relativeDir: string): { pattern: string; params: string[] } {
  const params: string[] = [];
  const segments = relativeDir
    .split(path.sep)
    .filter((segment) => segment !== '' && !/^\(.*\)$/.test(segment) && !segment.startsWith('@'))
    .map((segment) => {
      const dynamic = /^\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}$/.exec(segment);
      if (dynamic) params.push(dynamic[1] as string);
      return segment;
    });
  return { pattern: `/${segments.join('/')}`, params };
}

/** Every page and route handler under app/. */
export function appRoutes(root: string = repoRoot): AppRoute[] {
  const app = path.join(root, 'app');
  return walk(app)
    .flatMap((file): AppRoute[] => {
      const name = path.basename(file);
      const kind = PAGE.test(name) ? 'page' : ROUTE.test(name) ? 'route' : undefined;
      if (!kind) return [];
      return [{ kind, file: path.relative(root, file), ...patternOf(path.relative(app, path.dirname(file))) }];
    })
    .sort((a, b) => a.pattern.localeCompare(b.pattern));
}

/** Files under app/ that Next would serve as metadata routes (none today; each would need a check here). */
export function metadataRouteFiles(root: string = repoRoot): string[] {
  return walk(path.join(root, 'app'))
    .filter((file) => METADATA.test(path.basename(file)))
    .map((file) => path.relative(root, file));
}

/** A concrete path for `route`: each dynamic segment replaced by its value (URL-encoded by the caller if needed). */
export function pathOf(route: AppRoute, values: Record<string, string>): string {
  return route.pattern.replace(/\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`pathOf: no value for [${name}] in ${route.pattern}`);
    return value;
  });
}

const DIRECTIVE = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*['"]use server['"]/;

/** Source files (app, components, lib) whose first statement is 'use server': every export is a server action. */
export function serverActionModules(root: string = repoRoot): string[] {
  return ['app', 'components', 'lib']
    .flatMap((dir) => sourceFiles(path.join(root, dir)))
    .filter((file) => DIRECTIVE.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file))
    .sort();
}

/** Source files that mention 'use server' anywhere but at the top (an inline server action inside a function). */
export function inlineServerActionFiles(root: string = repoRoot): string[] {
  return ['app', 'components', 'lib']
    .flatMap((dir) => sourceFiles(path.join(root, dir)))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return !DIRECTIVE.test(text) && /^\s*['"]use server['"];?\s*$/m.test(text);
    })
    .map((file) => path.relative(root, file));
}
