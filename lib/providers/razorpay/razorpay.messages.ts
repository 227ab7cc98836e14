import { endpointLabel } from '../providers.messages';

const WEBHOOKS_PAGE = 'Razorpay Dashboard → Account & Settings → Webhooks';
const KEYS_PAGE = 'Razorpay Dashboard → Account & Settings → API Keys';

function entry(option: string, index: number, count: number): string {
  return count > 1 ? `${option}[${index}]` : option;
}

/** A webhook secret with spaces or line breaks around it: a copy-and-paste slip. */
export function razorpaySecretPaddedMessage(name: unknown, index: number, count: number): string {
  return (
    `${endpointLabel(name, 'razorpay')}: ${entry('secret', index, count)} has spaces or line ` +
    `breaks around it. Give the secret you typed when creating the webhook (${WEBHOOKS_PAGE}) ` +
    'exactly, without surrounding spaces or line breaks.'
  );
}

/** An API Key Id (`rzp_live_…`, `rzp_test_…`) given as the webhook secret. */
export function razorpaySecretIsKeyIdMessage(name: unknown, index: number, count: number): string {
  return (
    `${endpointLabel(name, 'razorpay')}: ${entry('secret', index, count)} looks like an API Key ` +
    'Id (rzp_live_… or rzp_test_…), not a webhook secret. Razorpay signs webhooks with the ' +
    `secret you typed when creating the webhook (${WEBHOOKS_PAGE}); if it is lost, edit the ` +
    'webhook and set a new one.'
  );
}

/** `api.keyId` is not a Razorpay API Key Id. */
export function razorpayKeyIdMessage(): string {
  return (
    'RazorpayStatusClient: keyId must be an API Key Id (rzp_live_… or rzp_test_…). Copy it from ' +
    `${KEYS_PAGE}, of the same mode (test or live) as the webhooks, without surrounding spaces.`
  );
}

/** Where the status client's credentials are found, for the shared credential messages. */
export const RAZORPAY_KEYS_PAGE = KEYS_PAGE;
