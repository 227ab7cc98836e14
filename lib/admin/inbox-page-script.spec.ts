import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

const SCRIPT = join(__dirname, 'page', 'inbox.js');

describe("the inbox page's script", () => {
  it('asks for type checking with // @ts-check on its first line, and passes it', () => {
    expect(readFileSync(SCRIPT, 'utf8').split('\n')[0]).toBe('// @ts-check');
    // NOTE: checkJs is left off, so the check runs only because the file asks for it, as an
    // editor runs it; the libraries are those of the browsers the page is written for.
    const program = ts.createProgram([SCRIPT], {
      allowJs: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      return `inbox.js:${(where?.line ?? -1) + 1}: TS${diagnostic.code} ${text}`;
    });
    expect(problems).toEqual([]);
  });
});
