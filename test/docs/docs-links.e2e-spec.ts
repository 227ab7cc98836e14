import {
  compileDocScripts,
  docsTree,
  removedAfterSuite,
  runDocScript,
} from '../support/doc-scripts';

const FENCE = '```';

/** Docs whose every relative link resolves, with GitHub's anchor rules exercised. */
const GOOD: Record<string, string> = {
  'README.md': [
    '# Shop',
    '',
    'See [the guide](docs/guide.md), [its options](docs/guide.md#forroot-options-the-basics),',
    'the [second setup](docs/guide.md#setup-1), [Upgrading](#upgrading-from-01) and',
    '[the samples](sample-shop/) or [the bench](bench/README.md#draining-over-worker-processes).',
    'Not links: `[x](nowhere.md)`, [a site](https://example.com/missing.md), [mail](mailto:a@b.c).',
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
    'Back to [the README](../README.md#shop).',
  ].join('\n'),
  'bench/README.md': '# Bench\n\n## Draining over worker processes\n',
  'sample-shop/README.md': '# Sample shop\n\n[The guide](../docs/guide.md#guide)\n',
};

describe('doc links (npm run docs:links)', () => {
  const tree = removedAfterSuite(docsTree);

  beforeAll(() => compileDocScripts(), 120_000);

  it('passes docs whose relative links name existing files and headings', () => {
    const run = runDocScript('check-doc-links', ['--root', tree(GOOD)]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('4 file(s) checked: 0 dead link(s).');
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
});
