// Builds the package and the sample app when their sources are newer than the build, then
// starts the sample app. `npm start` from the repository root runs this.
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
  if (newest(join(root, sources), '.ts') <= newest(join(root, output), '.js')) return;
  console.log(`Building ${sources} ...`);
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  execFileSync(process.execPath, [tsc, '-p', join(root, project)], { stdio: 'inherit', cwd: root });
}

build('lib', 'dist', 'tsconfig.build.json');
build('sample-app/src', 'sample-app/dist', 'sample-app/tsconfig.json');
require('./dist/main.js');
