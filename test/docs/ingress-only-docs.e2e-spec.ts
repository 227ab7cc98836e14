import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docBlock } from '../support/readme';

const ROOT = join(__dirname, '..', '..');

/** README and every page under docs/, by path. */
function pages(): [string, string][] {
  const docs = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? docs(join(dir, entry.name))
        : entry.name.endsWith('.md')
          ? [join(dir, entry.name)]
          : [],
    );
  return ['README.md', ...docs('docs')].map((path) => [
    path,
    readFileSync(join(ROOT, path), 'utf8'),
  ]);
}

/**
 * One documented way to run an instance that only stores and answers: `dispatch: { enabled:
 * false }`, in Nest and in Express alike. The router's `autoStart: false` only delays the background
 * work until `router.start()`, so no page may offer it as that switch.
 */
describe('the documented way to run an ingress-only instance', () => {
  it("is dispatch.enabled in the receiving guide's Plain Express app, switched by WEBHOOK_WORKER", () => {
    const example = docBlock('docs/receiving.md', 'Plain Express', 'ts') ?? '';
    expect(example).toContain("dispatch: { enabled: process.env.WEBHOOK_WORKER !== 'off' },");
    expect(example).not.toMatch(/^\s*(autoStart|start):/m);
  });

  it.each(pages())('is never autoStart: false on %s', (_path, text) => {
    expect(text).not.toMatch(/(autoStart|start):\s*process\.env\.WEBHOOK_WORKER/);
    const paragraphs = text.split(/\n\s*\n/);
    const offered = paragraphs.filter(
      (paragraph) =>
        /(autoStart|\bstart): false/.test(paragraph) &&
        /ingress-only|only (stores|receives)|WEBHOOK_WORKER/.test(paragraph) &&
        !/dispatch: \{ enabled: false/.test(paragraph),
    );
    expect(offered).toEqual([]);
  });
});
