import { adyenDescriptor } from './adyen/adyen.descriptor';
import { hmacDescriptor } from './hmac/hmac.descriptor';
import { paddleDescriptor } from './paddle/paddle.descriptor';
import { paypalDescriptor } from './paypal/paypal.descriptor';
import { ProviderDescriptor } from './provider-descriptor.interface';
import { qvardDescriptor } from './qvard/qvard.descriptor';
import { sberDescriptor } from './sber/sber.descriptor';
import { squareDescriptor } from './square/square.descriptor';
import { standardWebhooksDescriptor } from './standard-webhooks/standard-webhooks.descriptor';
import { stripeDescriptor } from './stripe/stripe.descriptor';
import { tbankDescriptor } from './tbank/tbank.descriptor';
import { yookassaDescriptor } from './yookassa/yookassa.descriptor';
import { yoomoneyDescriptor } from './yoomoney/yoomoney.descriptor';

/**
 * One descriptor per built-in provider kind, in the order the CLI lists them. Retention reads
 * the retry horizons from here and the CLI's `sign`/`send` sign through it. A new provider adds
 * its folder (provider, signer, fixtures, descriptor), one line here and its exports in the
 * indexes; `descriptors.spec.ts` fails while an endpoint factory has no descriptor.
 */
export const PROVIDER_DESCRIPTORS: readonly ProviderDescriptor[] = [
  stripeDescriptor,
  standardWebhooksDescriptor,
  qvardDescriptor,
  hmacDescriptor,
  tbankDescriptor,
  sberDescriptor,
  yoomoneyDescriptor,
  yookassaDescriptor,
  paypalDescriptor,
  paddleDescriptor,
  squareDescriptor,
  adyenDescriptor,
];

/** The descriptor of a provider kind exactly as `WebhookProvider.kind` has it; none for custom kinds. */
export function descriptorOfKind(kind: string): ProviderDescriptor | undefined {
  return PROVIDER_DESCRIPTORS.find((descriptor) => descriptor.kind === kind);
}

/** The descriptor a kind or one of its aliases names, in any case (`'Tinkoff'` is T-Bank). */
export function descriptorNamed(name: string): ProviderDescriptor | undefined {
  const wanted = name.toLowerCase();
  return PROVIDER_DESCRIPTORS.find(
    (descriptor) => descriptor.kind === wanted || descriptor.aliases?.includes(wanted) === true,
  );
}
