import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { WebhookTransport } from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import { faultPlanFromEnv } from '../fault-plan';
import { repositoryRoot } from '../repository-root';
import { TransportPlan, transportPlanFromEnv } from '../transport-plan';
import { FaultInjectionModule } from './fault-injection.module';

type SampleAppModule = typeof import('../../../sample-app/src/app.module');
type SampleConfigureApp = typeof import('../../../sample-app/src/configure-app');

/**
 * The sample shop exactly as `npm run build` built it (`sample-app/dist`), started the way its
 * own `main.ts` starts it, plus the fault-injection module. Environment: what the shop reads
 * (`DATABASE_URL` or `SQLITE_PATH`, `PORT`, the provider secrets), `RELIABILITY_FAULTS`, and
 * for a BullMQ scenario `RELIABILITY_TRANSPORT` (an ingress process listens and relays; a
 * worker process runs the jobs without listening, as a Nest application context).
 */
async function bootstrap(): Promise<void> {
  const plan = faultPlanFromEnv();
  const transportPlan = transportPlanFromEnv();
  const dist = join(repositoryRoot(__dirname), 'sample-app', 'dist');
  // NOTE: loaded from the sample's own build, so the process runs the shipped sample code.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AppModule } = require(join(dist, 'app.module.js')) as SampleAppModule;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { configureApp } = require(join(dist, 'configure-app.js')) as SampleConfigureApp;
  const module = FaultInjectionModule.forRoot(
    AppModule.forRoot(),
    plan,
    transportPlan && transportOf(transportPlan),
  );
  // NOTE: the per-delivery journal (log level) would cost more CPU than the requests it logs.
  const logger: ('error' | 'warn')[] = ['error', 'warn'];
  const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  if (transportPlan?.role === 'worker') {
    const context: INestApplicationContext = await NestFactory.createApplicationContext(module, {
      logger,
    });
    context.enableShutdownHooks();
    await context.init();
    console.log(
      `Reliability app pid ${process.pid} ready: BullMQ worker without HTTP (${database})`,
    );
    return;
  }
  const app = await NestFactory.create<NestExpressApplication>(module, { rawBody: true, logger });
  configureApp(app);
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  console.log(`Reliability app pid ${process.pid} ready: listening on port ${port} (${database})`);
}

/** The BullMQ transport of the plan: ingress processes relay only, workers run the jobs. */
function transportOf(plan: TransportPlan): WebhookTransport {
  const url = new URL(plan.redisUrl);
  return bullmqTransport({
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix: plan.prefix,
    redeliverAfterMs: plan.redeliverAfterMs,
    worker: plan.role === 'worker',
  });
}

void bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
