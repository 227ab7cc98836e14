import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { WebhookVerificationError } from '../../core/webhook-errors';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
/**
 * The subject common name of PayPal's message-signing certificates, as PayPal's Java SDK
 * requires it: `messageverificationcerts.paypal.com` live, `….sandbox.paypal.com` in sandbox.
 */
const PAYPAL_SIGNING_SUBJECT = /^messageverificationcerts(?:\.[a-z0-9-]+)*\.paypal\.com$/;
/** How many certificates an answer may hold, and how long a chain may be. */
const MAX_CHAIN_LENGTH = 8;

/** The CA certificates a PayPal signing certificate may chain to, indexed by subject. */
export interface PayPalTrustAnchors {
  /** Where they came from, as refusals name it: `'trustedRoots'` or Node's bundled roots. */
  readonly source: string;
  readonly bySubject: ReadonlyMap<string, readonly X509Certificate[]>;
}

function index(certificates: readonly X509Certificate[], source: string): PayPalTrustAnchors {
  const bySubject = new Map<string, X509Certificate[]>();
  for (const certificate of certificates) {
    bySubject.set(certificate.subject, [
      ...(bySubject.get(certificate.subject) ?? []),
      certificate,
    ]);
  }
  return { source, bySubject };
}

/** Every certificate in a PEM text, in order; undefined when a block does not parse. */
export function parsePemCertificates(pem: string): X509Certificate[] | undefined {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  try {
    return blocks.map((block) => new X509Certificate(block));
  } catch {
    return undefined;
  }
}

/**
 * Trust anchors from PEM texts (each may hold several certificates).
 * @returns the anchors, or the index of the first text that holds no usable CA certificate.
 */
export function trustAnchorsFrom(
  pems: readonly string[],
): { anchors: PayPalTrustAnchors } | { invalid: number } {
  const certificates: X509Certificate[] = [];
  for (const [position, pem] of pems.entries()) {
    const parsed = typeof pem === 'string' ? parsePemCertificates(pem) : undefined;
    if (parsed === undefined || parsed.length === 0 || parsed.some((c) => !c.ca)) {
      return { invalid: position };
    }
    certificates.push(...parsed);
  }
  return { anchors: index(certificates, 'trustedRoots') };
}

let nodeRoots: PayPalTrustAnchors | undefined;

/** Node's bundled root CAs (`tls.rootCertificates`), parsed once. */
export function nodeTrustAnchors(): PayPalTrustAnchors {
  nodeRoots ??= index(
    rootCertificates.flatMap((pem) => parsePemCertificates(pem) ?? []),
    "Node's bundled root certificates",
  );
  return nodeRoots;
}

function refuse(message: string): never {
  throw new WebhookVerificationError('bad_signature', message);
}

function shownName(certificate: X509Certificate): string {
  return JSON.stringify(certificate.subject.replace(/\n/g, ', '));
}

function commonNames(certificate: X509Certificate): string[] {
  return certificate.subject
    .split('\n')
    .filter((line) => line.startsWith('CN='))
    .map((line) => line.slice('CN='.length));
}

function assertValidAt(certificate: X509Certificate, at: Date, what: string): void {
  const now = at.getTime();
  if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo)) {
    refuse(
      `${what} is not valid at the receive time ` +
        `(valid from ${certificate.validFrom} to ${certificate.validTo})`,
    );
  }
}

/** The CA among `candidates` that issued and signed `certificate`, if any. */
function issuerAmong(
  certificate: X509Certificate,
  candidates: readonly X509Certificate[] | undefined,
): X509Certificate | undefined {
  // NOTE: a CA flag is required, so a leaf someone holds cannot vouch for a certificate it signs.
  return candidates?.find(
    (candidate) =>
      candidate.ca && certificate.checkIssued(candidate) && certificate.verify(candidate.publicKey),
  );
}

/**
 * The PayPal signing certificate of a certificate answer (the signing certificate first, then
 * the intermediates PayPal serves with it), once it is proven PayPal's: its subject is
 * `messageverificationcerts…paypal.com`, it is valid at `at`, and it chains through the served
 * certificates to one of `anchors`, every certificate on the way valid at `at` too.
 * @param source names the answer in refusals, e.g. `"https://api.paypal.com/…"`.
 * @throws WebhookVerificationError `bad_signature` naming what failed: the subject, the chain or
 * a validity period.
 */
export function verifyPayPalCertificateChain(
  pem: string,
  source: string,
  anchors: PayPalTrustAnchors,
  at: Date,
): X509Certificate {
  const served = parsePemCertificates(pem);
  if (served === undefined || served.length === 0) {
    refuse(`The answer from ${source} is not a PEM X.509 certificate`);
  }
  if (served.length > MAX_CHAIN_LENGTH) {
    refuse(`The answer from ${source} holds more than ${MAX_CHAIN_LENGTH} certificates`);
  }
  const [leaf, ...intermediates] = served;
  const names = commonNames(leaf);
  if (names.length !== 1 || !PAYPAL_SIGNING_SUBJECT.test(names[0].toLowerCase())) {
    refuse(
      `The certificate at ${source} is not PayPal's message-signing certificate: its subject is ` +
        `${shownName(leaf)}, not CN=messageverificationcerts.paypal.com ` +
        '(or messageverificationcerts.sandbox.paypal.com)',
    );
  }
  assertValidAt(leaf, at, `The PayPal certificate at ${source}`);
  let current = leaf;
  for (let length = 1; length <= MAX_CHAIN_LENGTH; length += 1) {
    const anchor = issuerAmong(current, anchors.bySubject.get(current.issuer));
    if (anchor !== undefined) {
      assertValidAt(anchor, at, `The trusted root ${shownName(anchor)}`);
      return leaf;
    }
    const issuer = issuerAmong(current, intermediates);
    if (issuer === undefined) break;
    assertValidAt(issuer, at, `The intermediate certificate ${shownName(issuer)} from ${source}`);
    current = issuer;
  }
  return refuse(
    `The certificate at ${source} does not chain to a trusted root: no certificate served with ` +
      `it or among ${anchors.source} issued ${shownName(current)} ` +
      `(issuer ${JSON.stringify(current.issuer.replace(/\n/g, ', '))})`,
  );
}
