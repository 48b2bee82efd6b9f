/** Where the sign-in project keeps each operator's signed-in browser state: beside the run's temporary journal. */
import path from 'node:path';

export function storageStatePath(login: string): string {
  const dataDir = process.env.GNL_E2E_DATA_DIR;
  if (!dataDir) throw new Error('GNL_E2E_DATA_DIR is set by playwright.config.ts');
  return path.join(path.dirname(dataDir), 'auth', `${login}.json`);
}

/** The demo's outside service the Studio under test talks to. */
export function demoServiceUrl(): string {
  return `http://127.0.0.1:${process.env.GNL_E2E_DEMO_PORT}`;
}
