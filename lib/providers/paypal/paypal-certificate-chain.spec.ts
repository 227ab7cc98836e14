import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { paypalFixtures } from './paypal.fixtures';
import {
  PAYPAL_TEST_CA_PEM,
  PAYPAL_TEST_CERT_URL,
  PAYPAL_TEST_CERTIFICATE_PEM,
  PAYPAL_TEST_PRIVATE_KEY_PEM,
} from './paypal-test-certificate';
import { signPayPalDelivery } from './paypal.signer';
import { PayPalEndpointOptions, paypalEndpoint } from './paypal.provider';
import { InboundWebhook } from '../webhook-provider.interface';
import {
  PAYPAL_SIGNING_SUBJECT,
  TestCertificate,
  TestCertificates,
} from '../../spec-support/paypal-certificates';

const WEBHOOK_ID = 'WH_CHAIN_TEST';
const DAY = 24 * 3600 * 1000;

let certificates: TestCertificates;
let root: TestCertificate;
let intermediate: TestCertificate;
let leaf: TestCertificate;

beforeAll(() => {
  certificates = new TestCertificates();
  root = certificates.selfSigned({ subject: '/O=Test Root/CN=Test Root CA', role: 'ca' });
  intermediate = certificates.issue(root, {
    subject: '/O=Test Root/CN=Test Intermediate CA',
    role: 'ca',
  });
  leaf = certificates.issue(intermediate, { subject: PAYPAL_SIGNING_SUBJECT });
});

afterAll(() => certificates.remove());

/** A delivery signed with `privateKey`, received `receivedAt`. */
function delivery(privateKey: string, receivedAt = new Date()): InboundWebhook {
  const signed = signPayPalDelivery({
    payload: paypalFixtures.captureCompleted(),
    webhookId: WEBHOOK_ID,
    privateKey,
    transmissionTime: receivedAt,
  });
  return { rawBody: Buffer.from(signed.body), headers: signed.headers, receivedAt };
}

/** An endpoint whose resolver answers `answer` for the test URL. */
function endpoint(answer: string, options: Partial<PayPalEndpointOptions> = {}) {
  return paypalEndpoint({
    name: 'paypal',
    webhookId: WEBHOOK_ID,
    certificateResolver: async (url) => {
      if (url !== PAYPAL_TEST_CERT_URL) throw new Error(`unexpected ${url}`);
      return answer;
    },
    trustedRoots: root.certPem,
    ...options,
  }).provider;
}

async function refusal(promise: Promise<unknown> | unknown): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('PayPal certificate checks', () => {
  it('accepts a certificate that chains through the intermediate served with it', async () => {
    const answer = leaf.certPem + intermediate.certPem;
    await expect(endpoint(answer).verify(delivery(leaf.keyPem))).resolves.toBeUndefined();
  });

  it('accepts a certificate issued directly by a trusted root', async () => {
    const direct = certificates.issue(root, {
      subject: PAYPAL_SIGNING_SUBJECT,
      keyPem: leaf.keyPem,
    });
    await expect(endpoint(direct.certPem).verify(delivery(direct.keyPem))).resolves.toBeUndefined();
  });

  it('refuses a self-signed certificate for another name, naming the subject', async () => {
    const forged = certificates.selfSigned({ subject: '/CN=attacker.example' });
    const message = await refusal(endpoint(forged.certPem).verify(delivery(forged.keyPem)));
    expect(message).toMatch(
      /is not PayPal's message-signing certificate: its subject is "CN=attacker.example"/,
    );
  });

  it.each([
    ['a longer name', '/CN=messageverificationcerts.paypal.com.attacker.example'],
    ['a look-alike label', '/CN=evilmessageverificationcerts.paypal.com'],
    ['another paypal.com name', '/CN=www.paypal.com'],
    ['no common name', '/O=PayPal, Inc.'],
    ['two common names', '/CN=messageverificationcerts.paypal.com/CN=attacker.example'],
  ])('refuses a certificate with %s, though a trusted CA issued it', async (_label, subject) => {
    const issued = certificates.issue(root, { subject, keyPem: leaf.keyPem });
    const message = await refusal(endpoint(issued.certPem).verify(delivery(issued.keyPem)));
    expect(message).toMatch(/is not PayPal's message-signing certificate/);
  });

  it('accepts the sandbox name, in any case', async () => {
    for (const subject of [
      '/CN=messageverificationcerts.sandbox.paypal.com',
      '/CN=MessageVerificationCerts.PayPal.com',
    ]) {
      const issued = certificates.issue(root, { subject, keyPem: leaf.keyPem });
      await expect(
        endpoint(issued.certPem).verify(delivery(issued.keyPem)),
      ).resolves.toBeUndefined();
    }
  });

  it('refuses a self-signed certificate in PayPal’s name, naming the chain', async () => {
    const forged = certificates.selfSigned({ subject: PAYPAL_SIGNING_SUBJECT, role: 'ca' });
    const message = await refusal(
      endpoint(forged.certPem + forged.certPem).verify(delivery(forged.keyPem)),
    );
    expect(message).toMatch(/does not chain to a trusted root/);
    expect(message).toMatch(/among trustedRoots/);
  });

  it('refuses a certificate in PayPal’s name issued by a CA nobody trusts', async () => {
    const otherRoot = certificates.selfSigned({ subject: '/CN=Other Root', role: 'ca' });
    const issued = certificates.issue(otherRoot, { subject: PAYPAL_SIGNING_SUBJECT });
    const message = await refusal(
      endpoint(issued.certPem + otherRoot.certPem).verify(delivery(issued.keyPem)),
    );
    expect(message).toMatch(/does not chain to a trusted root/);
  });

  it('refuses a chain whose intermediate is missing from the answer', async () => {
    const message = await refusal(endpoint(leaf.certPem).verify(delivery(leaf.keyPem)));
    expect(message).toMatch(/does not chain to a trusted root: no certificate .* issued/);
  });

  it('refuses a certificate signed with the key of a certificate that is no CA', async () => {
    // A certificate a trusted CA issued to someone else, used to issue one in PayPal's name.
    const someonesLeaf = certificates.issue(root, { subject: '/CN=shop.example' });
    const issued = certificates.issue(someonesLeaf, { subject: PAYPAL_SIGNING_SUBJECT });
    const message = await refusal(
      endpoint(issued.certPem + someonesLeaf.certPem).verify(delivery(issued.keyPem)),
    );
    expect(message).toMatch(/does not chain to a trusted root/);
  });

  it('refuses a certificate signed by one that is no CA and has no key usage', async () => {
    // NOTE: with no keyUsage, checkIssued() takes it for an issuer; only its CA:FALSE refuses it.
    const noCa = certificates.issue(root, { subject: '/CN=no-usage.example', role: 'non-ca' });
    const issued = certificates.issue(noCa, { subject: PAYPAL_SIGNING_SUBJECT });
    expect(new X509Certificate(issued.certPem).checkIssued(new X509Certificate(noCa.certPem))).toBe(
      true,
    );
    const message = await refusal(
      endpoint(issued.certPem + noCa.certPem).verify(delivery(issued.keyPem)),
    );
    expect(message).toMatch(/does not chain to a trusted root/);
  });

  it('refuses an intermediate that claims the issuer’s name but was signed by another key', async () => {
    const impostor = certificates.selfSigned({
      subject: '/O=Test Root/CN=Test Root CA',
      role: 'ca',
    });
    const issued = certificates.issue(impostor, { subject: PAYPAL_SIGNING_SUBJECT });
    const message = await refusal(endpoint(issued.certPem).verify(delivery(issued.keyPem)));
    expect(message).toMatch(/does not chain to a trusted root/);
  });

  it('refuses a certificate or an intermediate that is not valid at the receive time', async () => {
    const shortIntermediate = certificates.issue(root, {
      subject: '/CN=Short Intermediate',
      role: 'ca',
      days: 1,
    });
    const underShort = certificates.issue(shortIntermediate, {
      subject: PAYPAL_SIGNING_SUBJECT,
      keyPem: leaf.keyPem,
    });
    const shortLeaf = certificates.issue(intermediate, {
      subject: PAYPAL_SIGNING_SUBJECT,
      days: 1,
      keyPem: leaf.keyPem,
    });
    const later = new Date(Date.now() + 2 * DAY);
    const earlier = new Date(Date.now() - 2 * DAY);
    const chain = underShort.certPem + shortIntermediate.certPem;
    expect(await refusal(endpoint(chain).verify(delivery(underShort.keyPem, later)))).toMatch(
      /The intermediate certificate "CN=Short Intermediate" .* is not valid at the receive time/,
    );
    const leafChain = shortLeaf.certPem + intermediate.certPem;
    for (const at of [later, earlier]) {
      expect(await refusal(endpoint(leafChain).verify(delivery(shortLeaf.keyPem, at)))).toMatch(
        /The PayPal certificate at .* is not valid at the receive time/,
      );
    }
    await expect(endpoint(leafChain).verify(delivery(shortLeaf.keyPem))).resolves.toBeUndefined();
  });

  it('trusts Node’s bundled roots by default, so the test CA is trusted only when given', async () => {
    const request = delivery(PAYPAL_TEST_PRIVATE_KEY_PEM);
    const byDefault = endpoint(PAYPAL_TEST_CERTIFICATE_PEM, { trustedRoots: undefined });
    expect(await refusal(byDefault.verify(request))).toMatch(
      /does not chain to a trusted root: no certificate served with it or among Node's bundled root certificates/,
    );
    const testCa = new X509Certificate(PAYPAL_TEST_CA_PEM);
    expect(
      rootCertificates.some(
        (pem) => new X509Certificate(pem).fingerprint256 === testCa.fingerprint256,
      ),
    ).toBe(false);
    const withTestCa = endpoint(PAYPAL_TEST_CERTIFICATE_PEM, { trustedRoots: PAYPAL_TEST_CA_PEM });
    await expect(withTestCa.verify(request)).resolves.toBeUndefined();
  });

  it('takes several trusted roots, in one PEM text or a list', async () => {
    const request = delivery(leaf.keyPem);
    const answer = leaf.certPem + intermediate.certPem;
    for (const trustedRoots of [
      PAYPAL_TEST_CA_PEM + root.certPem,
      [PAYPAL_TEST_CA_PEM, root.certPem],
    ]) {
      await expect(endpoint(answer, { trustedRoots }).verify(request)).resolves.toBeUndefined();
    }
    const others = endpoint(answer, { trustedRoots: PAYPAL_TEST_CA_PEM });
    expect(await refusal(others.verify(request))).toMatch(/does not chain to a trusted root/);
  });

  it('trusts an intermediate given as a trusted root, as PayPal’s Java SDK pins one', async () => {
    const pinned = endpoint(leaf.certPem, { trustedRoots: intermediate.certPem });
    await expect(pinned.verify(delivery(leaf.keyPem))).resolves.toBeUndefined();
  });

  describe('trustedRoots at startup', () => {
    function configError(trustedRoots: unknown): string {
      try {
        paypalEndpoint({
          name: 'paypal',
          webhookId: WEBHOOK_ID,
          trustedRoots: trustedRoots as string,
        });
      } catch (error) {
        expect((error as Error).name).toBe(WebhookConfigurationError.name);
        return (error as Error).message;
      }
      throw new Error('expected a configuration error');
    }

    it.each([
      ['not PEM', 'DigiCert Global Root G2'],
      ['a certificate that is no CA', PAYPAL_TEST_CERTIFICATE_PEM],
      ['a private key', PAYPAL_TEST_PRIVATE_KEY_PEM],
      ['an empty list', []],
      ['not a string', [42]],
    ])('refuses trustedRoots that is %s, naming the fix', (_label, trustedRoots) => {
      expect(configError(trustedRoots)).toMatch(
        /"paypal" \(paypal\): trustedRoots is not PEM text of CA certificates: give the PEM of the root/,
      );
    });

    it('names the entry of a list that is unusable', () => {
      expect(configError([PAYPAL_TEST_CA_PEM, 'junk'])).toMatch(/trustedRoots\[1\] is not PEM/);
    });
  });
});
