import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What the docs checks know of the published package. */
export interface PackageContents {
  /** The files `npm pack` puts in the tarball, relative to the root, with `/` separators. */
  readonly files: ReadonlySet<string>;
  /** The repository on the web, `https://github.com/<owner>/<name>`, from `repository`. */
  readonly repository?: string;
}

/** The file list of `npm pack --dry-run --json` run in the root: the tarball as published. */
export function packedFiles(root: string): Set<string> {
  // NOTE: --ignore-scripts keeps prepack from building: the list comes from package.json
  // `files` and what is on disk, and a check of the docs should not compile the package.
  const run = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (run.status !== 0) {
    throw new Error(`npm pack --dry-run failed in ${root}:\n${run.stderr || run.error}`);
  }
  const [packed] = JSON.parse(run.stdout) as [{ files: { path: string }[] }];
  return new Set(packed.files.map((file) => file.path.split(path.sep).join('/')));
}

/**
 * The web address of package.json's `repository` when it is on GitHub
 * (`git+https://github.com/o/n.git`, `github:o/n` or `o/n`), without `.git`.
 */
export function repositoryUrl(root: string): string | undefined {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    repository?: string | { url?: string };
  };
  const declared =
    typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  if (!declared) return undefined;
  const shorthand = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(declared);
  const url = shorthand
    ? `https://github.com/${shorthand[1]}`
    : declared.replace(/^git\+/, '').replace(/^git:\/\//, 'https://');
  const github = /^https:\/\/github\.com\/([\w.-]+\/[\w.-]+?)(?:\.git)?\/?$/.exec(url);
  return github ? `https://github.com/${github[1]}` : undefined;
}

/** The packed files and the repository of the package whose package.json is in the root. */
export function packageContents(root: string): PackageContents {
  return { files: packedFiles(root), repository: repositoryUrl(root) };
}
