import {
  compileDocScripts,
  docsTree,
  removedAfterSuite,
  ROOT,
  runDocScript,
} from '../support/doc-scripts';

const FENCE = '```';
const REPO = 'https://github.com/acme/shop';

/** A package that ships README.md and docs/, from the repository above. */
const PACKAGE_JSON = JSON.stringify({
  name: 'shop',
  version: '1.0.0',
  files: ['docs', 'README.md'],
  repository: { type: 'git', url: `git+${REPO}.git` },
});

/**
 * Docs whose every link resolves, with GitHub's anchor rules exercised: shipped pages link to
 * each other relatively and to the rest of the repository absolutely; the bench and the sample,
 * not shipped, link relatively to anything in the checkout.
 */
const GOOD: Record<string, string> = {
  'package.json': PACKAGE_JSON,
  'README.md': [
    '# Shop',
    '',
    'See [the guide](docs/guide.md), [its options](docs/guide.md#forroot-options-the-basics),',
    'the [second setup](docs/guide.md#setup-1), [Upgrading](#upgrading-from-01) and',
    `[the samples](${REPO}/tree/main/sample-shop) or`,
    `[the bench](${REPO}/blob/main/bench/README.md#draining-over-worker-processes).`,
    'Not links: `[x](nowhere.md)`, [a site](https://example.com/missing.md), [mail](mailto:a@b.c),',
    `[issues](${REPO}/issues), [another repository](https://github.com/acme/other/blob/main/x.md).`,
    '',
    '## Upgrading from 0.1',
    '',
    '[ref]: docs/guide.md#setup',
  ].join('\n'),
  'docs/guide.md': [
    '# Guide',
    '',
    '## `forRoot()` options: the basics',
    '',
    '## Setup',
    '',
    '## Setup',
    '',
    `${FENCE}md`,
    '[inside a fence](missing.md)',
    FENCE,
    '',
    'Back to [the README](../README.md#shop); [the docs](./).',
  ].join('\n'),
  'bench/README.md': [
    '# Bench',
    '',
    '## Draining over worker processes',
    '',
    'Against [the sample](../sample-shop/README.md); [the guide](../docs/guide.md#setup).',
  ].join('\n'),
  'sample-shop/README.md': '# Sample shop\n\n[The guide](../docs/guide.md#guide)\n',
};

describe('doc links (npm run docs:links)', () => {
  const tree = removedAfterSuite(docsTree);

  beforeAll(() => compileDocScripts(), 120_000);

  it('passes docs whose links name existing files and headings, shipped ones from shipped pages', () => {
    const run = runDocScript('check-doc-links', ['--root', tree(GOOD)]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('4 file(s) checked, 2 of them in the package: 0 dead link(s).');
    expect(run.code).toBe(0);
  });

  it('fails on a missing file and a missing heading, each at its line', () => {
    const run = runDocScript('check-doc-links', [
      '--root',
      tree({
        ...GOOD,
        'docs/guide.md': `${GOOD['docs/guide.md']}\n\nSee [the FAQ](faq.md) and [setup](#setup-2).\n`,
        'sample-shop/README.md': '# Sample shop\n\n[The guide](../docs/guide.md#install)\n',
      }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'docs/guide.md:15: faq.md: no such file docs/faq.md',
      'docs/guide.md:15: #setup-2: no heading #setup-2 in docs/guide.md',
      'sample-shop/README.md:3: ../docs/guide.md#install: no heading #install in docs/guide.md',
    ]);
    expect(run.stdout).toContain('3 dead link(s)');
  });

  it('fails on a shipped page linking relatively to a file the package leaves out', () => {
    const run = runDocScript('check-doc-links', [
      '--root',
      tree({
        ...GOOD,
        'README.md': `${GOOD['README.md']}\n\nFigures: [the bench](bench/README.md#bench).\n`,
        'docs/guide.md': `${GOOD['docs/guide.md']}\n\nTry [the sample](../sample-shop/).\n`,
      }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'README.md:14: bench/README.md#bench: bench/README.md is not in the package, so the link is ' +
        `dead in node_modules: link to ${REPO}/blob/main/bench/README.md#bench instead, or add ` +
        'the file to "files" in package.json',
      'docs/guide.md:15: ../sample-shop/: sample-shop is not in the package, so the link is dead ' +
        `in node_modules: link to ${REPO}/tree/main/sample-shop instead, or add the file to ` +
        '"files" in package.json',
    ]);
  });

  it('takes what is shipped from npm pack: a shipped bench may be linked, and is then checked', () => {
    const run = runDocScript('check-doc-links', [
      '--root',
      tree({
        ...GOOD,
        'package.json': JSON.stringify({ ...JSON.parse(PACKAGE_JSON), files: ['docs', 'bench'] }),
        'docs/guide.md': `${GOOD['docs/guide.md']}\n\n[The bench](../bench/README.md#bench).\n`,
      }),
    ]);
    expect(run.stderr.trim().split('\n')).toEqual([
      'bench/README.md:5: ../sample-shop/README.md: sample-shop/README.md is not in the package, ' +
        `so the link is dead in node_modules: link to ${REPO}/blob/main/sample-shop/README.md ` +
        'instead, or add the file to "files" in package.json',
    ]);
    expect(run.stdout).toContain('4 file(s) checked, 3 of them in the package: 1 dead link(s).');
  });

  it('fails on an absolute link into the repository to a path or heading the checkout lacks', () => {
    const links = [
      `[results](${REPO}/blob/main/bench/results.md)`,
      `[a heading](${REPO}/blob/main/bench/README.md#setup)`,
      `[a folder](${REPO}/blob/main/sample-shop)`,
      `[a release](${REPO}/blob/v0.1.0/bench/README.md)`,
    ];
    const run = runDocScript('check-doc-links', [
      '--root',
      tree({ ...GOOD, 'docs/guide.md': `${GOOD['docs/guide.md']}\n\n${links.join(',\n')}.\n` }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `docs/guide.md:15: ${REPO}/blob/main/bench/results.md: no such file bench/results.md in the ` +
        'checkout, so the link is dead on GitHub: fix the path',
      `docs/guide.md:16: ${REPO}/blob/main/bench/README.md#setup: no heading #setup in bench/README.md`,
      `docs/guide.md:17: ${REPO}/blob/main/sample-shop: sample-shop is a folder: link to ` +
        `${REPO}/tree/main/sample-shop`,
      `docs/guide.md:18: ${REPO}/blob/v0.1.0/bench/README.md: link into the main branch, not v0.1.0`,
    ]);
  });

  it('passes this package: what npm pack ships and the rest of the checkout', () => {
    const run = runDocScript('check-doc-links', ['--root', ROOT]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/file\(s\) checked, [1-9]\d* of them in the package: 0 dead link/);
    expect(run.code).toBe(0);
  });
});
