export const BODY_ALREADY_PARSED = (contentType: string | undefined) =>
  `The webhooks router got a request body (content type ${JSON.stringify(contentType ?? 'none')}) ` +
  'that a body parser had already read, so the raw bytes the signature covers are gone. Mount the ' +
  "router before any parser: `app.use('/webhooks', webhooks)` first, then `app.use(express.json())`; " +
  'or keep the bytes with `express.raw({ type: () => true })` on the webhooks path.';

export const ROUTER_NOT_READY =
  'The webhooks router is not started: `await webhooks.start()` (or `createWebhooksRouter()`, ' +
  'which starts it) before the app listens.';
