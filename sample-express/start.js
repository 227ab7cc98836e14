// Builds the package and the Express shop when their sources are newer than the build, then
// starts the shop. `npm run start:express` from the repository root runs this.
const { execFileSync } = require('node:child_process');
const { readdirSync, statSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

function newest(dir, extension) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, extension));
    else if (entry.name.endsWith(extension)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function build(sources, output, project) {
  const newestSource = Math.max(...sources.map((dir) => newest(join(root, dir), '.ts')));
  if (newestSource <= newest(join(root, output), '.js')) return;
  console.log(`Building ${sources.join(' and ')} ...`);
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit', cwd: root });
}

build(['lib'], 'dist', 'tsconfig.build.json');
// NOTE: the Express shop compiles the orders and merchants code it shares with the Nest shop
// (sample-app/src).
build(
  ['sample-express/src', 'sample-app/src/orders', 'sample-app/src/merchants'],
  'sample-express/dist',
  'sample-express/tsconfig.json',
);
require('./dist/sample-express/src/main.js');
