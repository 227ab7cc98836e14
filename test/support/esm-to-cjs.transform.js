// Jest transform for the ES-module-only packages the suites load (Nest 12 and what it imports).
// Node runs the compiled package's require() of them natively (require(esm), Node 20.19+), but
// Jest's module runtime on Node 20 cannot: it needs CommonJS, so these files are rewritten to
// CommonJS once (by swc, as @swc/jest compiles the TypeScript) and cached.
const { createHash } = require('node:crypto');
const swc = require('@swc/core');

const IMPORT_META = [
  [/\bimport\.meta\.url\b/g, "require('node:url').pathToFileURL(__filename).href"],
  [/\bimport\.meta\.dirname\b/g, '__dirname'],
  [/\bimport\.meta\.filename\b/g, '__filename'],
  [/\bimport\.meta\.resolve\b/g, 'require.resolve'],
];

const options = {
  jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
  module: { type: 'commonjs' },
  swcrc: false,
  configFile: false,
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
    return { code: swc.transformSync(code, { ...options, filename: path }).code };
  },
  getCacheKey(source, path) {
    return createHash('sha256')
      .update(swc.version)
      .update('\0esm-to-cjs-5\0')
      .update(path)
      .update('\0')
      .update(source)
      .digest('hex');
  },
};
