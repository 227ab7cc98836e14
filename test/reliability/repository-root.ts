import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'nestjs-payment-webhooks';

/**
 * The repository's root directory, found by walking up from `from` to the package.json of
 * this package; compiled files run from a build directory, so a fixed `../..` would break.
 * @throws Error when no such package.json is above `from`.
 */
export function repositoryRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === PACKAGE_NAME) {
        return dir;
      }
    }
    if (dirname(dir) === dir) {
      throw new Error(`No package.json of ${PACKAGE_NAME} above ${from}`);
    }
  }
}
