import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { anchorsOf } from '../../scripts/check-doc-links';
import { splitFences } from '../../scripts/docs-support';
import { repositoryUrl } from '../../scripts/package-contents';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** One `## [name] - date` heading of the changelog. */
interface VersionHeading {
  name: string;
  date?: string;
  line: number;
}

/** `[1, 2, 3]` of `1.2.3`; anything else is not a release version. */
function semverOf(version: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** Negative when a comes before b in version order. */
function compareSemver(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether a `YYYY-MM-DD` text names a calendar day that exists. */
function isIsoDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  return new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
}

/**
 * CHANGELOG.md in the Keep a Changelog layout: `[Unreleased]` first, then every released version
 * newest first with its day, the first of them the package's own version, each heading defined
 * as a link at the bottom, and every relative link (to the upgrade notes, the guides) naming a
 * file and a heading that exist, by the same slug rules as the docs link check.
 */
describe('CHANGELOG.md', () => {
  const text = read('CHANGELOG.md');
  const lines = text.split('\n');
  const version = (JSON.parse(read('package.json')) as { version: string }).version;
  const headings: VersionHeading[] = lines.flatMap((line, index) => {
    const heading = /^## \[([^\]]+)\](?: - (.+))?$/.exec(line);
    return heading ? [{ name: heading[1], date: heading[2], line: index + 1 }] : [];
  });
  const released = headings.slice(1);
  const definitions = new Map(
    lines.flatMap((line) => {
      const definition = /^\[([^\]]+)\]: (\S+)$/.exec(line);
      return definition ? [[definition[1], definition[2]] as const] : [];
    }),
  );

  it('starts with "# Changelog"', () => {
    expect(lines[0]).toBe('# Changelog');
  });

  it('has an undated [Unreleased] section first, before any version', () => {
    expect(headings[0]).toEqual({ name: 'Unreleased', date: undefined, line: expect.any(Number) });
    expect(lines.findIndex((line) => line.startsWith('## '))).toBe(headings[0].line - 1);
  });

  it("names package.json's version as the first released version", () => {
    expect(released[0]?.name).toBe(version);
  });

  it('lists the released versions in descending semver order, each with an ISO day', () => {
    expect(released.length).toBeGreaterThan(0);
    const problems = released.flatMap(({ name, date, line }, index) => {
      if (!semverOf(name)) return [`line ${line}: ${name} is not a version x.y.z`];
      if (!date || !isIsoDay(date)) return [`line ${line}: ${name} has no ISO day (${date})`];
      const newer = released[index - 1];
      if (!newer) return [];
      if (compareSemver(semverOf(newer.name)!, semverOf(name)!) <= 0) {
        return [`line ${line}: ${name} comes after ${newer.name}, not before it`];
      }
      // NOTE: ISO days compare as text; a later version is never released on an earlier day.
      return newer.date! < date ? [`line ${line}: ${name} is dated after ${newer.name}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('defines every version heading as a link at the bottom, comparing it with the one before', () => {
    const repository = repositoryUrl(ROOT);
    expect(repository).toBeDefined();
    const expected = headings.map(({ name }, index) => {
      const older = headings[index + 1]?.name;
      const target =
        name === 'Unreleased'
          ? `${repository}/compare/v${older}...HEAD`
          : older
            ? `${repository}/compare/v${older}...v${name}`
            : `${repository}/releases/tag/v${name}`;
      return [name, target];
    });
    expect(headings.map(({ name }) => [name, definitions.get(name)])).toEqual(expected);
    // The definitions close the file: nothing but definitions after the first of them.
    const first = lines.findIndex((line) => /^\[[^\]]+\]: /.test(line));
    expect(
      lines.slice(first).filter((line) => line.trim() !== '' && !/^\[[^\]]+\]: /.test(line)),
    ).toEqual([]);
    expect(first).toBeGreaterThan(headings[headings.length - 1].line);
  });

  it('links relatively only to files that exist, and to headings that exist in them', () => {
    const prose = splitFences(text).prose.map((line) => line.replace(/(`+)[\s\S]*?\1/g, ''));
    const targets = prose.flatMap((line, index) =>
      [...line.matchAll(/\]\(([^()\s]+)\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .map((target) => ({ target, line: index + 1 })),
    );
    expect(targets.length).toBeGreaterThan(0);
    const problems = targets.flatMap(({ target, line }) => {
      const [path, anchor] = target.split('#', 2);
      const file = join(ROOT, dirname('CHANGELOG.md'), path || 'CHANGELOG.md');
      const name = relative(ROOT, file);
      if (!existsSync(file)) return [`line ${line}: ${target}: no such file ${name}`];
      if (anchor === undefined || !name.endsWith('.md')) return [];
      return anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))
        ? []
        : [`line ${line}: ${target}: no heading #${anchor} in ${name}`];
    });
    expect(problems).toEqual([]);
  });

  it('links every breaking change to its upgrade notes in docs/migration.md', () => {
    // An entry is its bullet line and the indented lines that continue it.
    const entries = text.split(/\n(?=- |#)/).filter((entry) => entry.startsWith('- **Breaking:**'));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((entry) => !entry.includes('](docs/migration.md#'))).toEqual([]);
  });
});
