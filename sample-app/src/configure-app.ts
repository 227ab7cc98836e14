import { ValidationPipe } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';

/** The largest webhook body the shop accepts; the same figure as the endpoints' default limit. */
const BODY_LIMIT = '1mb';

/** What `main.ts` sets up on the app before it listens, shared with the shop's tests. */
export function configureApp(app: NestExpressApplication): void {
  // NOTE: Express's JSON parser stops at 100 KB by default and would answer a larger signed
  // webhook with 413 before the webhook module sees it; align it with the endpoints' limit.
  app.useBodyParser('json', { limit: BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: BODY_LIMIT, extended: true });
  app.useGlobalPipes(
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  );
}
