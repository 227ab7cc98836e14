import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { ensureBuiltCli } from './cli';

const ROOT = join(__dirname, '..', '..');
// NOTE: inside the package's root, so `nestjs-payment-webhooks/*` resolves to the built dist/
// through package.json `exports`, as it does for an installed package.
const OUT_DIR = join(ROOT, '.tmp', 'worker-processes');
const READY_TIMEOUT_MS = 20_000;

/** What the worker process is started with (see `bullmq-worker.main.ts`). */
export interface BullmqWorkerSettings {
  readonly databaseUrl: string;
  readonly redisPort: number;
  readonly redisPrefix: string;
  readonly stripeSecret: string;
  /** The worker's `dispatch.leaseMs`: how soon the sweeper hands its events out once it dies. */
  readonly leaseMs: number;
  /** The handler (`first` or `second`) after whose commit the process freezes. */
  readonly freezeAfter: 'first' | 'second';
}

/** The handler commit the process froze after. */
export interface FrozenCommit {
  readonly eventId: string;
  readonly handler: string;
}

/** Builds the package when lib is newer than dist, and compiles a worker's entry point. */
function compiledEntry(source: string): string {
  ensureBuiltCli();
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
    fileName: source,
  });
  mkdirSync(OUT_DIR, { recursive: true });
  const entry = join(OUT_DIR, basename(source).replace(/\.ts$/, '.js'));
  writeFileSync(entry, outputText);
  return entry;
}

/**
 * A worker process of the spec's inbox, started from an entry point in this folder, that
 * freezes at a commit and prints a line saying so, for the spec to SIGKILL it there.
 */
export class WorkerProcess {
  private output = '';
  private readonly exited: Promise<void>;
  private readonly lineListeners = new Set<(line: string) => void>();

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let partial = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      lines.forEach((line) => this.lineListeners.forEach((listener) => listener(line)));
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /**
   * Starts `source` (a `*.main.ts` of this folder) with `env` and resolves once it prints
   * `ready`.
   */
  static async start(source: string, env: Record<string, string>): Promise<WorkerProcess> {
    const child = spawn(process.execPath, [compiledEntry(join(__dirname, source))], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        ...(process.env.TEST_LOGS ? { TEST_LOGS: process.env.TEST_LOGS } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // NOTE: a run stopped before its teardown must not leave the process behind.
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    child.once('exit', () => process.off('exit', orphaned));
    const worker = new WorkerProcess(child);
    await worker.line((line) => line === 'ready', READY_TIMEOUT_MS);
    return worker;
  }

  /** Resolves once the process printed that a handler committed, and froze. */
  async committed(timeoutMs = 10_000): Promise<FrozenCommit> {
    const [eventId, handler] = await this.printed('committed', timeoutMs);
    return { eventId, handler };
  }

  /** The words after `word` on the first line the process prints that starts with it. */
  async printed(word: string, timeoutMs = 10_000): Promise<string[]> {
    const line = await this.line((text) => text.startsWith(`${word} `), timeoutMs);
    return line.split(' ').slice(1);
  }

  /** SIGKILL, as a crash or the OOM killer would, and waits for the exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
    }
    await this.exited;
  }

  private line(match: (line: string) => boolean, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const done = (error: Error | undefined, line = '') => {
        clearTimeout(timer);
        this.lineListeners.delete(listener);
        this.child.off('exit', onExit);
        if (error) reject(error);
        else resolve(line);
      };
      const listener = (line: string) => match(line) && done(undefined, line);
      const onExit = (code: number | null, signal: string | null) =>
        done(new Error(`the worker exited (${signal ?? code}):\n${this.output}`));
      const timer = setTimeout(
        () => done(new Error(`no expected line within ${timeoutMs} ms:\n${this.output}`)),
        timeoutMs,
      );
      this.lineListeners.add(listener);
      this.child.once('exit', onExit);
    });
  }
}

/** The BullMQ worker-only process of `bullmq-worker.main.ts`, frozen after a handler's commit. */
export function startBullmqWorker(settings: BullmqWorkerSettings): Promise<WorkerProcess> {
  return WorkerProcess.start('bullmq-worker.main.ts', {
    DATABASE_URL: settings.databaseUrl,
    REDIS_PORT: String(settings.redisPort),
    REDIS_PREFIX: settings.redisPrefix,
    STRIPE_SECRET: settings.stripeSecret,
    LEASE_MS: String(settings.leaseMs),
    FREEZE_AFTER: settings.freezeAfter,
  });
}
