/**
 * The API reports: for each entry of package.json's `exports`, API Extractor reads the built
 * declarations (`dist/<entry>/index.d.ts`) and writes what the entry exports, with every
 * signature, to `api/<name>.api.md`. A change of the public surface is then a change of a
 * committed file, seen in review. The shared settings are api-extractor.json.
 *
 *   npm run api:report            builds the declarations, writes or updates api/*.api.md
 *   npm run api:check             fails when the built surface differs from the committed reports
 *   --root <dir>                  the package's root (default: the cwd)
 *
 * Both fail on API Extractor's errors and warnings, first of all a type that a public signature
 * names but the entry does not export (ae-forgotten-export).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CompilerState,
  ConsoleMessageId,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  ExtractorMessage,
  ExtractorMessageCategory,
} from '@microsoft/api-extractor';
import { argValue, firstDifference } from './docs-support';
import {
  REPORT_FOLDER,
  ReportedEntry,
  reportedEntries,
  typeOnlyExports,
  withTypeOnlySection,
} from './api-report-files';

const CONFIG = 'api-extractor.json';

/** Console messages API Extractor prints about its own report files, which this script keeps. */
const OWN_FILE_MESSAGES = new Set<string>([
  ConsoleMessageId.ApiReportNotCopied,
  ConsoleMessageId.ApiReportCopied,
  ConsoleMessageId.ApiReportCreated,
  ConsoleMessageId.ApiReportUnchanged,
  // NOTE: its bundled TypeScript is newer than the project's, which only reads declarations here.
  ConsoleMessageId.CompilerVersionNotice,
  ConsoleMessageId.Preamble,
]);

function prepare(root: string, entry: ReportedEntry): ExtractorConfig {
  const configFile = path.join(root, CONFIG);
  const config = ExtractorConfig.loadFile(configFile);
  config.mainEntryPointFilePath = `<projectFolder>/${entry.types}`;
  config.apiReport = { ...config.apiReport!, reportFileName: entry.report };
  return ExtractorConfig.prepare({
    configObject: config,
    configObjectFullPath: configFile,
    packageJsonFullPath: path.join(root, 'package.json'),
  });
}

/** Runs API Extractor on one entry: its report's text, and how many errors and warnings it had. */
function extract(
  root: string,
  config: ExtractorConfig,
  entry: ReportedEntry,
  compilerState: CompilerState,
): { text: string; problems: number } {
  const result = Extractor.invoke(config, {
    // NOTE: API Extractor writes into .tmp/api/ (api-extractor.json); this script compares and
    // writes the committed reports itself, after adding the section of type-only exports.
    localBuild: true,
    compilerState,
    messageCallback: (message: ExtractorMessage) => {
      if (OWN_FILE_MESSAGES.has(message.messageId)) {
        message.logLevel = ExtractorLogLevel.None;
        message.handled = true;
      } else if (
        message.category !== ExtractorMessageCategory.Console &&
        (message.logLevel === ExtractorLogLevel.Error ||
          message.logLevel === ExtractorLogLevel.Warning)
      ) {
        // NOTE: a message names a declaration file; the entry says where a user meets it.
        console.error(
          `${entry.path}: ${message.logLevel}: ${message.formatMessageWithLocation(root)}`,
        );
        message.handled = true;
      }
    },
  });
  const generated = fs.readFileSync(path.join(config.reportFolder, entry.report), 'utf8');
  return {
    text: withTypeOnlySection(generated, typeOnlyExports(root, entry.types)),
    problems: result.errorCount + result.warningCount,
  };
}

/** Prints how the committed report differs from the built surface, as a unified diff if it can. */
function printDifference(root: string, committedFile: string, text: string, scratch: string): void {
  fs.writeFileSync(scratch, text);
  const files = [committedFile, scratch].map((file) => path.relative(root, file));
  const diff = spawnSync('diff', ['-u', ...files], { cwd: root, encoding: 'utf8' });
  if (diff.status === 1 && diff.stdout) {
    console.error(diff.stdout.trimEnd());
    return;
  }
  const committed = fs.existsSync(committedFile) ? fs.readFileSync(committedFile, 'utf8') : '';
  const first = firstDifference(committed, text);
  console.error(`  first difference at line ${first.line}:`);
  console.error(`  - ${first.found ?? '(end of file)'}`);
  console.error(`  + ${first.expected ?? '(end of file)'}`);
}

function main(argv: readonly string[]): number {
  const root = path.resolve(argValue(argv, '--root') ?? '.');
  const check = argv.includes('--check');
  const entries = reportedEntries(root);
  const missing = entries.filter((entry) => !fs.existsSync(path.join(root, entry.types)));
  if (missing.length > 0) {
    console.error(
      `not built: ${missing.map((entry) => entry.types).join(', ')}; run npm run build`,
    );
    return 1;
  }
  const configs = entries.map((entry) => prepare(root, entry));
  // NOTE: one program over every entry's declarations, which share most of dist/.
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
  });
  fs.mkdirSync(path.join(root, REPORT_FOLDER), { recursive: true });

  let failed = false;
  entries.forEach((entry, index) => {
    const { text, problems } = extract(root, configs[index], entry, compilerState);
    const file = path.join(root, REPORT_FOLDER, entry.report);
    const shown = `${REPORT_FOLDER}/${entry.report}`;
    if (problems > 0) {
      failed = true;
      console.error(
        `${entry.path}: ${problems} problem(s) from API Extractor (above): export each type a ` +
          'public signature names from the entry where a user meets it (export type { … })',
      );
    }
    const same = fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text;
    if (same) return;
    if (!check) {
      fs.writeFileSync(file, text);
      console.log(`${entry.path}: updated ${shown}`);
      return;
    }
    failed = true;
    printDifference(
      root,
      file,
      text,
      path.join(configs[index].reportTempFolder, `${entry.report}.new`),
    );
    console.error(
      `${entry.path}: the built surface differs from ${shown} (diff above): run ` +
        'npm run api:report, review the diff and commit it with the change (see ' +
        'docs/development.md, "The API reports", for what it means for the version)',
    );
  });
  if (!failed) {
    console.log(`${entries.length} API reports ${check ? 'match the build' : 'written'}`);
  }
  return failed ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
