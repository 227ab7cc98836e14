import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

/**
 * The heap in use right after each full (mark-sweep) collection: what is still reachable, the
 * figure that grows when something leaks. A heap read at a fixed interval lands anywhere on the
 * collector's sawtooth instead.
 */
@Injectable()
export class HeapWatch implements OnModuleDestroy {
  /** Bytes in use after the latest full collection, or null before the first. */
  afterLastFullGc: number | null = null;

  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        this.afterLastFullGc = getHeapStatistics().used_heap_size;
      }
    }
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  onModuleDestroy(): void {
    this.observer.disconnect();
  }
}
