import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** `major.minor` of a version, as numbers. */
function minorOf(version: string): [number, number] {
  const [major, minor] = version.split('.').map(Number);
  return [major, minor];
}

/**
 * docs/migration.md says which upgrade it covers, in its title and in README's documentation
 * table, and that upgrade ends at the package's own minor version: a release that moves the
 * version without a new page fails here instead of leaving the old title standing.
 */
describe('the migration page', () => {
  const page = read('docs/migration.md');
  const title = /^# (.*)$/m.exec(page)?.[1] ?? '';
  const upgrade = /^Upgrading from (\d+\.\d+) to (\d+\.\d+)$/.exec(title);
  const version = (JSON.parse(read('package.json')) as { version: string }).version;

  it('is titled for the upgrade it describes: "Upgrading from <minor> to <minor>"', () => {
    expect(upgrade).not.toBeNull();
    const [, from, to] = upgrade!;
    const [fromMajor, fromMinor] = minorOf(from);
    const [toMajor, toMinor] = minorOf(to);
    expect(fromMajor * 1000 + fromMinor).toBeLessThan(toMajor * 1000 + toMinor);
    // NOTE: the page's first paragraph names the release whose changes it lists.
    expect(page.split(/\n\s*\n/)[1]).toContain(`${to}.0`);
  });

  it("leads to the package's current minor version", () => {
    const [major, minor] = minorOf(version);
    expect(upgrade?.[2]).toBe(`${major}.${minor}`);
  });

  it("is named by README's documentation table as its title names it", () => {
    const row = read('README.md')
      .split('\n')
      .find((line) => line.includes('(docs/migration.md)'));
    expect(row).toMatch(
      new RegExp(`^\\| \\[${title.replace(/\./g, '\\.')}\\]\\(docs/migration\\.md\\) \\|`),
    );
  });
});
