import { PAYMENT_EVENT_TYPES } from '../core/payment-event-types';
import { WebhookConfigurationError, WebhookVerificationError } from '../core/webhook-errors';
import { PROVIDER_DEFINITIONS } from './catalog/definitions';
import { rejection } from '../spec-support/rejection';
import { DefinedProvider } from './define-provider';
import { notificationsOf } from './notifications';
import { SignedDelivery } from './signed-delivery';
import { InboundWebhook, WebhookEndpoint } from './webhook-provider.interface';

// NOTE: every provider folder is checked the same way, from its definition alone: a provider
// added to the catalog is covered here without a spec of its own for these properties.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProvider = DefinedProvider<any>;

const CASES = PROVIDER_DEFINITIONS.map((provider) => [provider.kind, provider] as const);

function endpointOf(provider: AnyProvider, secret?: string | readonly string[]): WebhookEndpoint {
  const { definition } = provider;
  const secrets = definition.secrets ? { [definition.secrets.option]: secret } : {};
  return provider.endpoint({ name: 'checked', ...definition.sample.options, ...secrets });
}

/** The sample delivery, signed as the CLI's `sign` signs it. */
function cliSigned(provider: AnyProvider): SignedDelivery {
  const { sample } = provider.definition;
  return provider.descriptor.signing.sign({
    text: sample.body,
    json: JSON.parse(sample.body) as unknown,
    secret: sample.secret,
    options: sample.flags ?? {},
    readFile: (flag) => {
      throw new Error(`the sample reads no file (--${flag})`);
    },
  });
}

function inbound(delivery: SignedDelivery, body = delivery.body): InboundWebhook {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  return { rawBody: Buffer.from(body), headers, receivedAt: new Date() };
}

async function verificationError(
  endpoint: WebhookEndpoint,
  request: InboundWebhook,
): Promise<unknown> {
  try {
    await endpoint.provider.verify(request);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('provider definitions', () => {
  it('give each provider its own kind', () => {
    const kinds = PROVIDER_DEFINITIONS.map((provider) => provider.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  describe.each(CASES)('%s', (kind, provider) => {
    const { definition } = provider;

    it('builds endpoints of its kind, and says which kind its factory builds', () => {
      expect(provider.endpoint.kind).toBe(kind);
      expect(endpointOf(provider, definition.sample.secret).provider.kind).toBe(kind);
      expect(provider.descriptor.kind).toBe(kind);
    });

    it('maps native types only to the package vocabulary', () => {
      for (const type of Object.values(definition.types)) {
        expect(PAYMENT_EVENT_TYPES).toContain(type);
      }
    });

    it('accepts the sample as the CLI signs it, and reads the id the signer reports', async () => {
      const delivery = cliSigned(provider);
      const endpoint = endpointOf(provider, definition.sample.secret);
      expect(await verificationError(endpoint, inbound(delivery))).toBeUndefined();
      const [first] = notificationsOf(await endpoint.provider.normalize(inbound(delivery)));
      expect(delivery.eventId).toBe(first.eventId);
      const native = first.nativeType;
      expect(first.type).toBe(
        Object.hasOwn(definition.types, native) ? definition.types[native] : `${kind}:${native}`,
      );
    });

    const secrets = definition.secrets;
    if (secrets === undefined) return;
    const secret = definition.sample.secret as string;
    const otherSecret = definition.sample.otherSecret ?? `${secret}0ther`;

    it(`refuses at startup a missing (unless optional), empty or spaced (unless allowed) ${secrets.option}, naming it`, () => {
      if (!secrets.optional) {
        expect(() => endpointOf(provider, undefined)).toThrow(WebhookConfigurationError);
        expect(() => endpointOf(provider, undefined)).toThrow(secrets.option);
      }
      expect(() => endpointOf(provider, [])).toThrow(secrets.option);
      if (!secrets.allowWhitespace) {
        const spaced = rejection(() => endpointOf(provider, ` ${secret}`));
        expect(spaced.message).toMatch(/contains whitespace/);
        expect(spaced.message).not.toContain(secret);
      }
    });

    it('accepts a list of secrets while rotating: a delivery signed with any of them', async () => {
      const endpoint = endpointOf(provider, [otherSecret, secret]);
      expect(await verificationError(endpoint, inbound(cliSigned(provider)))).toBeUndefined();
    });

    it('refuses a changed body, a delivery without its signature, and another secret', async () => {
      const delivery = cliSigned(provider);
      const endpoint = endpointOf(provider, secret);
      const changed = delivery.body.replace(/.$/s, (last) => (last === ' ' ? '\n' : ' '));
      const contentType = delivery.headers['content-type'] ?? 'application/json';
      const unsigned = definition.sample.withoutSignature
        ? definition.sample.withoutSignature(delivery)
        : { ...delivery, headers: { 'content-type': contentType } };
      for (const request of [inbound(delivery, changed), inbound(unsigned)]) {
        expect(await verificationError(endpoint, request)).toBeInstanceOf(WebhookVerificationError);
      }
      const other = await verificationError(endpointOf(provider, otherSecret), inbound(delivery));
      expect(other).toBeInstanceOf(WebhookVerificationError);
      // NOTE: the refusal names what to check, never the secret or the signature it expected.
      const { message } = other as WebhookVerificationError;
      expect(message).not.toContain(secret);
      for (const value of Object.values(delivery.headers)) {
        if (value.length >= 16) expect(message).not.toContain(value);
      }
    });
  });
});
