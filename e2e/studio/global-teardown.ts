import { rmSync } from 'node:fs';
import path from 'node:path';

/** Removes the temporary journal the run seeded (its parent is the mkdtemp folder). */
export default function globalTeardown() {
  const dataDir = process.env.GNL_E2E_DATA_DIR;
  if (dataDir) rmSync(path.dirname(dataDir), { recursive: true, force: true });
}
