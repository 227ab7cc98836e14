export { bullmqTransport, BullmqWebhookTransport } from './bullmq.transport';
export type { BullmqTransportOptions } from './bullmq-transport.options';
export { WEBHOOK_JOB_NAME, webhookJobId } from './webhook-job';
export type { WebhookJobData, WebhookJobLike } from './webhook-job';
export type { WebhookJobResult } from './webhook-job.runner';
