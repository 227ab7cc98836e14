import { rmSync } from 'node:fs';
import suiteTeardown from '../support/global-teardown';

export default async function globalTeardown(): Promise<void> {
  const dir = (globalThis as { __freshAppPack?: string }).__freshAppPack;
  if (dir) rmSync(dir, { recursive: true, force: true });
  await suiteTeardown();
}
