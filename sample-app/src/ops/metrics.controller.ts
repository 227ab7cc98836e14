import { Controller, Get, Res } from '@nestjs/common';
import { WebhooksMetrics } from 'nestjs-payment-webhooks';

/** The part of the platform's response the controller sets the content type on. */
interface ContentTypeTarget {
  setHeader(name: string, value: string): void;
}

/** Prometheus scrapes the shop here: the webhook module's metrics, in the text format. */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly webhooks: WebhooksMetrics) {}

  @Get()
  scrape(@Res({ passthrough: true }) response: ContentTypeTarget): Promise<string> {
    response.setHeader('Content-Type', this.webhooks.contentType);
    return this.webhooks.metrics();
  }
}
