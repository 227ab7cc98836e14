'use strict';
/**
 * One worker process of the workers benchmark, forked by `bench/workers.js`: the built
 * package's `createWebhooksRouter()`, never mounted, on the run's inbox, with the in-process
 * worker or the BullMQ transport. It boots with `autoStart: false` and says `ready`; on `start` it
 * starts the router (the worker, or the relay and BullMQ worker) and says `started`; on `stop`
 * (or SIGTERM) it stops the router, closes the data source and exits.
 *
 * Settings come from the environment: BENCH_DATABASE (URL), BENCH_TRANSPORT (`in-process` or
 * `bullmq`), BENCH_CONCURRENCY, BENCH_POOL_SIZE, BENCH_HANDLER_MS, BENCH_REDIS_URL and
 * BENCH_REDIS_PREFIX (BullMQ only).
 */
const { express, openInbox, routerOptions, workerDispatch } = require('./drain-app');

const env = (name) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

async function main() {
  const dataSource = await openInbox({
    url: env('BENCH_DATABASE'),
    poolSize: Number(env('BENCH_POOL_SIZE')),
  });
  const dispatch = workerDispatch({
    transport: env('BENCH_TRANSPORT'),
    concurrency: Number(env('BENCH_CONCURRENCY')),
    redisUrl: process.env.BENCH_REDIS_URL,
    prefix: process.env.BENCH_REDIS_PREFIX,
  });
  const router = await express().createWebhooksRouter(
    routerOptions({ dataSource, handlerMs: Number(env('BENCH_HANDLER_MS')), dispatch }),
  );
  let stopping;
  const stop = () => {
    stopping ??= router
      .stop()
      .then(() => dataSource.destroy())
      .then(
        () => process.exit(0),
        (error) => {
          console.error(error);
          process.exit(1);
        },
      );
    return stopping;
  };
  process.on('SIGTERM', stop);
  process.on('message', (message) => {
    if (message === 'start') {
      router.start().then(
        () => process.send('started'),
        (error) => {
          console.error(error);
          process.exit(1);
        },
      );
    } else if (message === 'stop') {
      void stop();
    }
  });
  // NOTE: the runner going away (it crashed or was interrupted) stops this worker too.
  process.on('disconnect', stop);
  process.send('ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
