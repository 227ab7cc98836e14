import { cycles, figuresOf, readImportGraph, roomsOf } from '../../scripts/import-graph';
import { docsTree, removedAfterSuite, ROOT } from '../support/doc-scripts';

/** The files under lib/ of a tree, by path relative to lib/. */
function libFiles(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([file, text]) => [`lib/${file}`, text]));
}

/** The adapters: only the entries above them may import them. */
const ADAPTERS = ['nest', 'express'];

describe('the import graph of lib/', () => {
  const figures = figuresOf(readImportGraph(ROOT));
  const graph = readImportGraph(ROOT);

  it('has no file that imports itself through others, and no such folder', () => {
    expect(figures.fileCycles).toEqual([]);
    expect(figures.folderCycles).toEqual([]);
    expect(figures.folders).toBeGreaterThan(15);
  });

  it('keeps the adapters on top: only the root entry imports nest/ or express/', () => {
    const importers = [...graph.folders]
      .filter(([, targets]) => ADAPTERS.some((adapter) => targets.has(adapter)))
      .map(([folder]) => folder);
    expect(importers.sort()).toEqual(['.']);
  });

  it("keeps the store's rooms in one order: no room imports another that imports it back", () => {
    const rooms = roomsOf(graph, 'store');
    expect(cycles(rooms)).toEqual([]);
    expect([...rooms.keys()].sort()).toEqual([
      '.',
      'connections',
      'history',
      'intake',
      'jobs',
      'ledger',
      'ports',
      'queries',
      'schema',
      'work',
    ]);
    // NOTE: the ports are the contracts every room implements or takes; they import no room.
    expect([...rooms.get('ports')!]).toEqual([]);
  });

  describe('on a tree with cycles', () => {
    const tree = removedAfterSuite(docsTree);

    it('names each file cycle and each folder cycle with the edges that close it', () => {
      const root = tree(
        libFiles({
          'a/one.ts': "import { two } from './two';\nexport const one = two;\n",
          'a/two.ts': "import type { one } from './one';\nexport const two = 2 as typeof one;\n",
          'a/three.ts': "export { four } from '../b';\n",
          'b/index.ts': "export const four = require('../a/two.js');\n",
          'c/alone.ts': "import { one } from '../a/one';\nexport const alone = one;\n",
          'c/alone.spec.ts': "import { one } from '../a/one';\n",
        }),
      );
      const found = figuresOf(readImportGraph(root));
      expect(found.files).toBe(5);
      expect(found.fileCycles).toEqual([['a/one.ts', 'a/two.ts']]);
      expect(found.folderCycles).toEqual([['a', 'b']]);
      expect(found.cycleEdges).toEqual(['a → b', 'b → a']);
      expect(found.folderEdges).toBe(3);
    });
  });
});
