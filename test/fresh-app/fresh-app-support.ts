import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..');

/**
 * Runs a command as a user would type it; its output, or an error holding everything it printed.
 * @param env the process's environment, with these values on top (none of Jest's own).
 */
export function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): string {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('JEST_')),
  );
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...inherited, ...env },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  }
}

/** The tarball the fresh-app global setup packed (test/fresh-app/global-setup.ts). */
export function packedTarball(): string {
  const tarball = process.env.FRESH_APP_TARBALL;
  if (!tarball) throw new Error('FRESH_APP_TARBALL is unset: run npm run test:fresh-app');
  return tarball;
}

/** Builds the package and packs it as `npm publish` would; returns the tarball's path. */
export function packPackage(into: string): string {
  run('npm', ['run', 'build'], ROOT);
  run('npm', ['pack', '--pack-destination', into], ROOT);
  const tarball = readdirSync(into).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack left no tarball in ${into}`);
  return join(into, tarball);
}
