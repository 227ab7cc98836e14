import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, WriteStream } from 'node:fs';
import { createServer } from 'node:net';

/** How long an instance may take to get ready (listen, or run its worker) after it is started. */
const START_TIMEOUT_MS = 90_000;
const READY = /Reliability app pid \d+ ready/;

/**
 * One process of the shop, started from the reliability entry point on a fixed port (a BullMQ
 * worker process gets one too, and listens on none).
 */
export class AppInstance {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private readonly log: WriteStream;
  /** Times this instance was started. */
  starts = 0;
  /** Process ids of every start, the running one last. */
  readonly pids: number[] = [];
  /** Exits nobody asked for (a crash), as `name exited (code …, signal …) at <ISO time>`. */
  readonly crashes: string[] = [];
  private stopping = false;

  /**
   * @param name names the instance in logs and reports (`pg-a`, `sqlite`).
   * @param entry the compiled entry point (`…/test/reliability/app/main.js`).
   * @param env the environment on top of the runner's (database, secrets, faults).
   * @param logPath where the process's stdout and stderr go.
   */
  constructor(
    readonly name: string,
    readonly port: number,
    private readonly entry: string,
    private env: Record<string, string>,
    readonly logPath: string,
    private readonly cwd: string,
  ) {
    this.log = createWriteStream(logPath, { flags: 'a' });
  }

  /** Base URL of the instance. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** Replaces environment variables for the next start (e.g. the fixed fault plan). */
  setEnv(changes: Record<string, string>): void {
    this.env = { ...this.env, ...changes };
  }

  /**
   * Starts the process and resolves once it is ready (listening, or its worker running).
   * @throws Error when it exits first or is not ready in time, with the end of its log.
   */
  async start(): Promise<void> {
    if (this.child) {
      throw new Error(`${this.name} is already running`);
    }
    this.starts += 1;
    this.log.write(`\n===== start #${this.starts} at ${new Date().toISOString()} =====\n`);
    const child = spawn(process.execPath, [this.entry], {
      cwd: this.cwd,
      env: { ...process.env, ...this.env, PORT: String(this.port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.stopping = false;
    if (child.pid !== undefined) {
      this.pids.push(child.pid);
    }
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.log.write(`===== exited code=${code} signal=${signal} =====\n`);
        if (!this.stopping) {
          this.crashes.push(
            `${this.name} exited (code ${code}, signal ${signal}) at ${new Date().toISOString()}`,
          );
        }
        if (this.child === child) {
          this.child = undefined;
        }
        resolve();
      });
    });
    child.stderr?.pipe(this.log, { end: false });
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${this.name} was not ready within ${START_TIMEOUT_MS} ms${this.tail()}`));
      }, START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        this.log.write(chunk);
        output = (output + chunk.toString('utf8')).slice(-500);
        if (READY.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `${this.name} exited (code ${code}, signal ${signal}) before it was ready${this.tail()}`,
          ),
        );
      });
    });
  }

  /** Sends `signal` (SIGKILL by default) and waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) {
      return;
    }
    this.stopping = true;
    child.kill(signal);
    await this.exited;
  }

  /** Stops gracefully (SIGTERM, the app's shutdown hooks), killing it after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child) {
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }

  /** Closes the log file. */
  async close(): Promise<void> {
    await this.kill();
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  private tail(): string {
    try {
      const text = readFileSync(this.logPath, 'utf8');
      return `; end of ${this.logPath}:\n${text.slice(-3000)}`;
    } catch {
      return '';
    }
  }
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
