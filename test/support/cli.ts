import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { buildOnce, newestFile, tsc } from './built-once';
import {
  cliEntry,
  CliIo,
  CliStream,
  useWebhooksLogger,
  WebhooksLogger,
  WebhooksLoggerFactory,
  webhooksLoggerFactory,
  WebhooksLogLevel,
} from './internals';

const ROOT = join(__dirname, '..', '..');

/** The CLI as npm installs it: the `bin` of package.json, built by `npm run build`. */
export const CLI_MAIN = join(ROOT, 'dist', 'cli', 'main.js');

/**
 * Builds the package (tsconfig.build.json, as `npm run build` does) when dist is older than lib,
 * once across the suites of a run.
 */
export function ensureBuiltCli(): void {
  buildOnce(
    'dist',
    () =>
      existsSync(CLI_MAIN) && statSync(CLI_MAIN).mtimeMs >= newestFile(join(ROOT, 'lib'), '.ts'),
    () => {
      try {
        tsc(['-p', join(ROOT, 'tsconfig.build.json')]);
      } catch {
        // NOTE: tsc still emits when a file elsewhere in lib has a type error; the typecheck step
        // reports those, and the check below fails when nothing was emitted.
      }
      if (!existsSync(CLI_MAIN)) {
        throw new Error(`building the package did not produce ${CLI_MAIN}`);
      }
    },
  );
}

/** What a CLI run printed and how it exited. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of `runCli()`. */
export interface RunCliOptions {
  /** The only variables in the CLI's environment besides PATH. */
  env?: Record<string, string>;
  /** Written to its standard input. */
  input?: string;
  /** Working directory (`runBuiltCli()` only). */
  cwd?: string;
  /** Sends the CLI one SIGINT (Ctrl-C) as soon as its stderr satisfies this (`runBuiltCli()` only). */
  interruptWhen?: (stderr: string) => boolean;
}

/** Runs the built CLI in a child process, as `npx nestjs-payment-webhooks …` would. */
export function runBuiltCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (!interrupted && options.interruptWhen?.(stderr)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** The stderr of the CLI run a line is written in, if any. */
const cliRuns = new AsyncLocalStorage<CliStream>();
const routing = new WeakSet<WebhooksLoggerFactory>();
const LEVELS: readonly WebhooksLogLevel[] = ['log', 'warn', 'error', 'debug', 'verbose', 'fatal'];

/**
 * Sends the package's lines written inside a CLI run to that run's stderr, as the bin's logger
 * does, and every other line where it went before (the app's logger), so an app and the CLI can
 * share this process.
 */
function routeLinesOfCliRuns(cliLogger: (stderr: CliStream) => WebhooksLogger): void {
  const outside = webhooksLoggerFactory();
  if (routing.has(outside)) {
    return;
  }
  const factory: WebhooksLoggerFactory = (context) => {
    const other = outside(context);
    const logger = {
      isLevelEnabled: (level: WebhooksLogLevel) =>
        cliRuns.getStore() !== undefined || (other.isLevelEnabled?.(level) ?? true),
    } as WebhooksLogger;
    for (const level of LEVELS) {
      logger[level] = (message: unknown, ...params: unknown[]) => {
        const stderr = cliRuns.getStore();
        if (stderr) cliLogger(stderr)[level](message);
        else other[level](message, ...params);
      };
    }
    return logger;
  };
  routing.add(factory);
  useWebhooksLogger(factory);
}

/**
 * Runs the CLI in this process, through `runCli()` of lib/cli as its bin does, with the
 * arguments, environment and standard input of a run in a child process, and its output
 * captured: the suites that use the CLI next to an app start no process per command. The bin
 * itself, `dist/cli/main.js`, is run as npm installs it by `runBuiltCli()` (test/cli/cli.e2e-spec.ts).
 */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  if (options.cwd !== undefined || options.interruptWhen !== undefined) {
    throw new Error(
      'runCli() runs in this process: use runBuiltCli() for another working directory or a Ctrl-C',
    );
  }
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { PATH: process.env.PATH ?? '', ...options.env },
    readStdin: async () => options.input ?? '',
    now: () => new Date(),
  };
  const { runCli: run, cliLogger } = await cliEntry();
  routeLinesOfCliRuns(cliLogger);
  const code = await cliRuns.run(io.stderr, () => run(args, io));
  return { code, stdout, stderr };
}

/** Parses what the CLI printed as JSON, failing with its output when it is not. */
export function cliJson<T>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
  }
}

/** A local port nothing listens on. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
