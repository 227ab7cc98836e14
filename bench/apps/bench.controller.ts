import {
  Controller,
  DefaultValuePipe,
  Get,
  HttpCode,
  Param,
  ParseIntPipe,
  Post,
  Query,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { WebhookDispatcher } from 'nestjs-payment-webhooks';
import { CpuProfiler } from './cpu-profiler';
import { HeapWatch } from './heap-watch';
import { LagRecorder } from './lag-recorder';
import type { HandlerStats } from './lag-recorder';

/** Routes the benchmark runner drives the app with; they exist only in the benchmark app. */
@Controller('bench')
export class BenchController {
  constructor(
    private readonly recorder: LagRecorder,
    private readonly profiler: CpuProfiler,
    private readonly heap: HeapWatch,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Handler starts and receipt-to-start lag since the last reset; `events` is how many events
   * the lag percentiles are over (those not started yet count as longer than any measured).
   */
  @Get('stats')
  stats(@Query('events', new DefaultValuePipe(0), ParseIntPipe) events: number): HandlerStats {
    return this.recorder.stats(events);
  }

  /** The process's memory, as Node reports it, and the heap after the latest full collection. */
  @Get('memory')
  memory(): NodeJS.MemoryUsage & { heapAfterFullGc: number | null } {
    return { ...process.memoryUsage(), heapAfterFullGc: this.heap.afterLastFullGc };
  }

  /** Forgets the handler statistics and measures only events whose id starts with `prefix`. */
  @Post('reset/:prefix')
  @HttpCode(204)
  reset(@Param('prefix') prefix: string): void {
    this.recorder.reset(prefix);
  }

  /** Makes every later handler run wait `ms` milliseconds (0: no-op). */
  @Post('handler-delay/:ms')
  @HttpCode(204)
  setHandlerDelay(@Param('ms', ParseIntPipe) ms: number): void {
    this.recorder.handlerDelayMs = Math.max(0, ms);
  }

  /** Stops claiming events (running handlers finish), so a backlog can be built. */
  @Post('dispatcher/stop')
  @HttpCode(204)
  async stopDispatcher(): Promise<void> {
    await this.dispatcher().stop();
  }

  /** Starts claiming events again. */
  @Post('dispatcher/start')
  @HttpCode(204)
  startDispatcher(): void {
    this.dispatcher().start();
  }

  /** Starts sampling this process's CPU (`--profile`). */
  @Post('profile/start')
  @HttpCode(204)
  async startProfile(): Promise<void> {
    await this.profiler.start();
  }

  /** Stops the CPU profile and answers it (`.cpuprofile` JSON). */
  @Post('profile/stop')
  @HttpCode(200)
  stopProfile(): Promise<unknown> {
    return this.profiler.stop();
  }

  private dispatcher(): WebhookDispatcher {
    return this.moduleRef.get(WebhookDispatcher, { strict: false });
  }
}
