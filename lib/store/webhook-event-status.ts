/** Where an inbox event stands. */
export type WebhookEventStatus =
  'pending' | 'processing' | 'retrying' | 'processed' | 'ignored' | 'dead';
