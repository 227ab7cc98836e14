import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import suiteSetup from '../support/global-setup';
import { packPackage } from './fresh-app-support';

/**
 * The suite's PostgreSQL and Redis, then the package built and packed once for every fresh-app
 * file, as `npm publish` would pack it: the files run side by side and install the same tarball.
 */
export default async function globalSetup(): Promise<void> {
  await suiteSetup();
  const dir = mkdtempSync(join(tmpdir(), 'pw-fresh-app-pack-'));
  process.env.FRESH_APP_TARBALL = packPackage(dir);
  (globalThis as { __freshAppPack?: string }).__freshAppPack = dir;
}
