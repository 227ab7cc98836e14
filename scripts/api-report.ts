/**
 * The API reports: for each entry of package.json's `exports`, API Extractor reads the built
 * declarations (`dist/<entry>/index.d.ts`, so run `npm run build` first) and writes what the
 * entry exports, with every signature, to `api/<name>.api.md`. A change of the public surface is
 * then a change of a committed file, seen in review. The shared settings are api-extractor.json.
 *
 *   npm run api:report            writes or updates api/*.api.md
 *   npm run api:check             fails when a built entry differs from its committed report
 *   --root <dir>                  the package's root (default: the cwd)
 *
 * Both fail on API Extractor's errors, first of all a type that a public signature names but
 * the entry does not export (ae-forgotten-export).
 */
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
import { argValue } from './docs-support';
import { REPORT_FOLDER, ReportedEntry, reportedEntries } from './api-report-files';

const CONFIG = 'api-extractor.json';

/** What one entry's run found. */
interface EntryOutcome {
  readonly entry: ReportedEntry;
  readonly errors: number;
  readonly warnings: number;
  /** The built surface differs from the committed report (or there is none). */
  readonly changed: boolean;
}

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

function run(
  config: ExtractorConfig,
  entry: ReportedEntry,
  local: boolean,
  compilerState: CompilerState,
): EntryOutcome {
  const report = `${REPORT_FOLDER}/${entry.report}`;
  const root = config.projectFolder;
  const result = Extractor.invoke(config, {
    localBuild: local,
    compilerState,
    printApiReportDiff: !local,
    messageCallback: (message: ExtractorMessage) => {
      // NOTE: API Extractor's own advice (copy the temp file by hand) is replaced by ours, and
      // the notice that its bundled compiler is newer than the project's says nothing here.
      if (
        message.messageId === ConsoleMessageId.ApiReportNotCopied ||
        message.messageId === ConsoleMessageId.ApiReportCopied ||
        message.messageId === ConsoleMessageId.ApiReportCreated ||
        message.messageId === ConsoleMessageId.CompilerVersionNotice ||
        message.messageId === ConsoleMessageId.Preamble
      ) {
        message.logLevel = ExtractorLogLevel.None;
        message.handled = true;
      } else if (
        message.category !== ExtractorMessageCategory.Console &&
        (message.logLevel === ExtractorLogLevel.Error ||
          message.logLevel === ExtractorLogLevel.Warning)
      ) {
        // NOTE: the messages name the declaration file; the entry tells where a user meets it.
        console.error(
          `${entry.path}: ${message.logLevel}: ${message.formatMessageWithLocation(root)}`,
        );
        message.handled = true;
      }
    },
  });
  if (result.apiReportChanged && local) console.log(`${entry.path}: updated ${report}`);
  return {
    entry,
    errors: result.errorCount,
    warnings: result.warningCount,
    changed: result.apiReportChanged,
  };
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
  fs.mkdirSync(path.join(root, REPORT_FOLDER), { recursive: true });
  const configs = entries.map((entry) => prepare(root, entry));
  // NOTE: one program over every entry's declarations: they share most of dist/.
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
  });
  const outcomes = entries.map((entry, index) => run(configs[index], entry, !check, compilerState));

  let failed = false;
  for (const { entry, errors, warnings } of outcomes) {
    if (errors + warnings === 0) continue;
    failed = true;
    console.error(
      `${entry.path}: ${errors} error(s), ${warnings} warning(s) from API Extractor (above); ` +
        'export each type a public signature names from the entry where a user meets it',
    );
  }
  const stale = outcomes.filter((outcome) => check && outcome.changed);
  for (const { entry } of stale) {
    console.error(
      `${entry.path}: the built surface differs from ${REPORT_FOLDER}/${entry.report} (diff above); ` +
        'run npm run api:report, review the diff and commit it with the change',
    );
  }
  if (!failed && stale.length === 0) {
    console.log(`${entries.length} API reports ${check ? 'match the build' : 'written'}`);
  }
  return failed || stale.length > 0 ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
