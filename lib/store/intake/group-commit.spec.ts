import { GroupCommit } from './group-commit';

function fulfilled<T>(items: T[]): PromiseSettledResult<T>[] {
  return items.map((value) => ({ status: 'fulfilled', value }));
}

describe('GroupCommit', () => {
  it('fails only the items the write reports as failed', async () => {
    const group = new GroupCommit<number, number>(
      async (items) =>
        items.map((n) =>
          n === 2
            ? { status: 'rejected', reason: new Error('bad row') }
            : { status: 'fulfilled', value: n },
        ),
      10,
      1,
    );
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('writes items submitted together in one batch and answers each with its own result', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, string>(
      async (items) => {
        batches.push(items);
        return items.map((n) => ({ status: 'fulfilled' as const, value: `r${n}` }));
      },
      100,
      1,
    );
    const results = await Promise.all([1, 2, 3].map((n) => group.submit(n)));
    expect(results).toEqual(['r1', 'r2', 'r3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('queues items that arrive during a write for the next one, within maxBatch', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const group = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        if (batches.length === 1) {
          await gate;
        }
        return fulfilled(items);
      },
      2,
      1,
    );
    const first = group.submit(0);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [1, 2, 3].map((n) => group.submit(n));
    release();
    expect(await Promise.all([first, ...later])).toEqual([0, 1, 2, 3]);
    expect(batches).toEqual([[0], [1, 2], [3]]);
  });

  it('fails every item of a failed batch and keeps serving later ones', async () => {
    let calls = 0;
    const group = new GroupCommit<number, number>(
      async (items) => {
        calls += 1;
        if (calls === 1) {
          throw new Error('database unavailable');
        }
        return fulfilled(items);
      },
      10,
      1,
    );
    const failed = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await group.submit(3)).toBe(3);
  });

  it('runs up to maxInFlight writes at once', async () => {
    let running = 0;
    let peak = 0;
    const group = new GroupCommit<number, number>(
      async (items) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        return fulfilled(items);
      },
      1,
      3,
    );
    await Promise.all(Array.from({ length: 9 }, (_, n) => group.submit(n)));
    expect(peak).toBe(3);
  });
});
