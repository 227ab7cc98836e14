import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { Session } from 'node:inspector/promises';

/**
 * Samples this process's CPU with V8's profiler between `start()` and `stop()`, so the runner
 * can show where a scenario's time went (`--profile`). Costs nothing until started.
 */
@Injectable()
export class CpuProfiler implements OnModuleDestroy {
  private session?: Session;

  async start(): Promise<void> {
    if (this.session) {
      return;
    }
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    this.session = session;
  }

  /**
   * Stops sampling.
   * @returns the profile in Chrome DevTools' `.cpuprofile` format.
   * @throws Error when no profile was started.
   */
  async stop(): Promise<unknown> {
    const session = this.session;
    if (!session) {
      throw new Error('No CPU profile is running: POST /bench/profile/start first');
    }
    this.session = undefined;
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    return profile;
  }

  onModuleDestroy(): void {
    this.session?.disconnect();
  }
}
