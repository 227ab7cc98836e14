import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { faultPlanFromEnv } from '../fault-plan';
import { repositoryRoot } from '../repository-root';
import { FaultInjectionModule } from './fault-injection.module';

type SampleAppModule = typeof import('../../../sample-app/src/app.module');
type SampleConfigureApp = typeof import('../../../sample-app/src/configure-app');

/**
 * The sample shop exactly as `npm run build` built it (`sample-app/dist`), started the way its
 * own `main.ts` starts it, plus the fault-injection module. Environment: what the shop reads
 * (`DATABASE_URL` or `SQLITE_PATH`, `PORT`, the provider secrets) and `RELIABILITY_FAULTS`.
 */
async function bootstrap(): Promise<void> {
  const plan = faultPlanFromEnv();
  const dist = join(repositoryRoot(__dirname), 'sample-app', 'dist');
  // NOTE: loaded from the sample's own build, so the process runs the shipped sample code.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { AppModule } = require(join(dist, 'app.module.js')) as SampleAppModule;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { configureApp } = require(join(dist, 'configure-app.js')) as SampleConfigureApp;
  const app = await NestFactory.create<NestExpressApplication>(
    FaultInjectionModule.forRoot(AppModule.forRoot(), plan),
    // NOTE: the per-delivery journal (log level) would cost more CPU than the requests it logs.
    { rawBody: true, logger: ['error', 'warn'] },
  );
  configureApp(app);
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port, '127.0.0.1');
  console.log(
    `Reliability app pid ${process.pid} listening on port ${port} ` +
      `(${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`,
  );
}

void bootstrap().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
