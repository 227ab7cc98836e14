import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/doc-scripts';

interface Manifest {
  repository?: { type?: string; url?: string };
  homepage?: string;
  bugs?: { url?: string };
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/** README.md and docs/**.md: the Markdown the package ships. */
function shippedMarkdown(dir = 'docs'): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return shippedMarkdown(file);
    return entry.name.endsWith('.md') ? [file] : [];
  });
}

describe('package.json: where the package comes from', () => {
  const repository = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\.git$/.exec(
    manifest.repository?.url ?? '',
  )?.[1];

  it('names a git repository on GitHub, and its README and issues as homepage and bugs', () => {
    expect(manifest.repository?.type).toBe('git');
    expect(repository).toBe('https://github.com/nestjs-payment-webhooks/nestjs-payment-webhooks');
    expect(manifest.homepage).toBe(`${repository}#readme`);
    expect(manifest.bugs?.url).toBe(`${repository}/issues`);
  });

  it('is the repository the docs link into, so the link check covers every such link', () => {
    const project = repository?.split('/').pop() ?? '';
    const elsewhere = ['README.md', ...shippedMarkdown()].flatMap((file) =>
      [
        ...readFileSync(join(ROOT, file), 'utf8').matchAll(
          /https:\/\/github\.com\/[\w.-]+\/[\w.-]+/g,
        ),
      ]
        .map((match) => match[0])
        .filter((url) => url.includes(project) && url !== repository)
        .map((url) => `${file}: ${url}`),
    );
    expect(elsewhere).toEqual([]);
  });
});
