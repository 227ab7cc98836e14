import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ensureBuiltCli } from './cli';

const ROOT = join(__dirname, '..', '..');
const SOURCE = join(__dirname, 'bullmq-worker.main.ts');
// NOTE: inside the package's root, so `nestjs-payment-webhooks/*` resolves to the built dist/
// through package.json `exports`, as it does for an installed package.
const OUT_DIR = join(ROOT, '.tmp', 'bullmq-worker');
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

/** Builds the package when lib is newer than dist, and compiles the worker's entry point. */
function compiledEntry(): string {
  ensureBuiltCli();
  const { outputText } = ts.transpileModule(readFileSync(SOURCE, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
    fileName: SOURCE,
  });
  mkdirSync(OUT_DIR, { recursive: true });
  const entry = join(OUT_DIR, 'bullmq-worker.main.js');
  writeFileSync(entry, outputText);
  return entry;
}

/** A worker-only process of the BullMQ transport that the spec kills after a handler's commit. */
export class BullmqWorkerProcess {
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

  /** Starts the process and resolves once its worker runs. */
  static async start(settings: BullmqWorkerSettings): Promise<BullmqWorkerProcess> {
    const child = spawn(process.execPath, [compiledEntry()], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: settings.databaseUrl,
        REDIS_PORT: String(settings.redisPort),
        REDIS_PREFIX: settings.redisPrefix,
        STRIPE_SECRET: settings.stripeSecret,
        LEASE_MS: String(settings.leaseMs),
        FREEZE_AFTER: settings.freezeAfter,
        ...(process.env.TEST_LOGS ? { TEST_LOGS: process.env.TEST_LOGS } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // NOTE: a run stopped before its teardown must not leave the process behind.
    const orphaned = () => child.kill('SIGKILL');
    process.once('exit', orphaned);
    child.once('exit', () => process.off('exit', orphaned));
    const worker = new BullmqWorkerProcess(child);
    await worker.line((line) => line === 'ready', READY_TIMEOUT_MS);
    return worker;
  }

  /** Resolves once the process printed that a handler committed, and froze. */
  async committed(timeoutMs = 10_000): Promise<FrozenCommit> {
    const line = await this.line((text) => text.startsWith('committed '), timeoutMs);
    const [, eventId, handler] = line.split(' ');
    return { eventId, handler };
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
