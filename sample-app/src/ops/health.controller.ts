import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { WebhooksHealthIndicator } from 'nestjs-payment-webhooks';

/**
 * The shop's health for monitoring: the database answers, and the webhook inbox keeps up
 * (backlog, oldest pending event, dead letters, silent endpoints). 503 when something is down.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly webhooks: WebhooksHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([
      () => this.database.pingCheck('database'),
      () => this.webhooks.isHealthy('webhooks'),
    ]);
  }
}
