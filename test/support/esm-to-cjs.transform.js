// Jest transform for the ES-module-only packages the suites load (Nest 12 and what it imports).
// Node runs the compiled package's require() of them natively (require(esm), Node 20.19+), but
// Jest's module runtime on Node 20 cannot: it needs CommonJS, so these files are rewritten to
// CommonJS once and cached. The package's own code is compiled by ts-jest as before.
const { createHash } = require('node:crypto');
const ts = require('typescript');

const IMPORT_META = [
  [/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href"],
  [/\bimport\.meta\.dirname\b/g, '__dirname'],
  [/\bimport\.meta\.filename\b/g, '__filename'],
  [/\bimport\.meta\.resolve\b/g, 'require.resolve'],
];

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  allowJs: true,
};

/** An ES module may bind `require` itself (`createRequire`); CommonJS already has one. */
function renameOwnRequire(source) {
  return /\b(const|let|var)\s+require\b/.test(source)
    ? source.replace(/\brequire\b/g, '__esmRequire')
    : source;
}

module.exports = {
  process(source, path) {
    const code = IMPORT_META.reduce(
      (text, [pattern, value]) => text.replace(pattern, value),
      renameOwnRequire(source),
    );
    return { code: ts.transpileModule(code, { fileName: path, compilerOptions }).outputText };
  },
  getCacheKey(source, path) {
    return createHash('sha256')
      .update(ts.version)
      .update('\0esm-to-cjs-4\0')
      .update(path)
      .update('\0')
      .update(source)
      .digest('hex');
  },
};
