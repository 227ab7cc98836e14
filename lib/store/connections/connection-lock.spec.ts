import { ConnectionLock, LockWaitTimeout } from './connection-lock';

describe('ConnectionLock', () => {
  it('runs work one piece at a time when enabled', async () => {
    const lock = new ConnectionLock(true);
    const order: string[] = [];
    const slow = lock.run(async () => {
      order.push('a:start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('a:end');
    });
    const fast = lock.run(async () => {
      order.push('b');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a:start', 'a:end', 'b']);
  });

  it('refuses a nested use instead of waiting for itself forever', async () => {
    const lock = new ConnectionLock(true);
    await expect(lock.run(() => lock.run(async () => 'inner'))).rejects.toThrow(
      /would wait for itself forever/,
    );
    expect(await lock.run(async () => 'after')).toBe('after');
  });

  it('lets unrelated work queued later run once the holder is done', async () => {
    const lock = new ConnectionLock(true);
    const first = lock.run(async () => 1);
    const second = lock.run(async () => 2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
  });

  it('runs urgent work before the queue, after the piece running', async () => {
    const lock = new ConnectionLock(true);
    const order: string[] = [];
    let release!: () => void;
    const holding = lock.run(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      order.push('holder');
    });
    const queued = [1, 2].map((n) => lock.run(async () => void order.push(`queued ${n}`)));
    const urgent = lock.run(async () => void order.push('urgent'), { urgent: true });
    release();
    await Promise.all([holding, ...queued, urgent]);
    expect(order).toEqual(['holder', 'urgent', 'queued 1', 'queued 2']);
  });

  it('goes on with the queue when a piece throws, synchronously or not', async () => {
    const lock = new ConnectionLock(true);
    const thrown = lock.run((() => {
      throw new Error('at once');
    }) as () => Promise<never>);
    const rejected = lock.run(() => Promise.reject(new Error('later')));
    const after = lock.run(async () => 'after');
    await expect(thrown).rejects.toThrow('at once');
    await expect(rejected).rejects.toThrow('later');
    expect(await after).toBe('after');
  });

  it('gives up waiting after waitMs without running the work, and keeps the queue going', async () => {
    const lock = new ConnectionLock(true);
    let release!: () => void;
    const holding = lock.run(() => new Promise<void>((resolve) => (release = resolve)));
    let ran = false;
    const impatient = lock.run(async () => void (ran = true), { urgent: true, waitMs: 30 });
    const patient = lock.run(async () => 'patient');
    await expect(impatient).rejects.toBeInstanceOf(LockWaitTimeout);
    release();
    await holding;
    expect(await patient).toBe('patient');
    expect(ran).toBe(false);
  });

  it('counts waitMs from the start of the hold: behind a long hold, a late call fails at once', async () => {
    const lock = new ConnectionLock(true);
    let release!: () => void;
    const holding = lock.run(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 60));
    const startedAt = Date.now();
    await expect(lock.run(async () => 'late', { waitMs: 50 })).rejects.toBeInstanceOf(
      LockWaitTimeout,
    );
    expect(Date.now() - startedAt).toBeLessThan(20);
    release();
    await holding;
    expect(await lock.run(async () => 'free', { waitMs: 50 })).toBe('free');
  });

  it('makes the package wait for an app statement, and an app statement for the package', async () => {
    const lock = new ConnectionLock(true);
    const order: string[] = [];
    const giveBack = await lock.hold(false);
    const work = lock.run(async () => void order.push('package'));
    order.push('app statement');
    giveBack();
    await work;
    let release!: () => void;
    const holding = lock.run(() => new Promise<void>((resolve) => (release = resolve)));
    const app = lock.hold(false).then((back) => {
      order.push('app after package');
      return back;
    });
    release();
    await holding;
    (await app)();
    expect(order).toEqual(['app statement', 'package', 'app after package']);
  });

  it('fails package work that waited its patience for an open app transaction', async () => {
    const lock = new ConnectionLock(true, 80);
    const giveBack = await lock.hold(true);
    const startedAt = Date.now();
    await expect(lock.run(async () => 'never')).rejects.toThrow(/after your transaction commits/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(70);
    giveBack();
    expect(await lock.run(async () => 'after')).toBe('after');
  });

  it('counts only the time an app transaction held the lock against the patience', async () => {
    const lock = new ConnectionLock(true, 150);
    let release!: () => void;
    const holding = lock.run(() => new Promise<void>((resolve) => (release = resolve)));
    const waiting = lock.run(async () => 'ran');
    // Held by the package for longer than the patience: the waiter keeps waiting.
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    await holding;
    expect(await waiting).toBe('ran');
  });

  it('does nothing when disabled (PostgreSQL)', async () => {
    const lock = new ConnectionLock(false);
    expect(await lock.run(() => lock.run(async () => 'nested'))).toBe('nested');
  });
});
