import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The subject of PayPal's live message-signing certificate, as OpenSSL's `-subj` takes it. */
export const PAYPAL_SIGNING_SUBJECT = '/O=PayPal, Inc./CN=messageverificationcerts.paypal.com';

/** A certificate made for a test, with its private key. */
export interface TestCertificate {
  readonly keyPem: string;
  readonly certPem: string;
}

/**
 * What a certificate is for: a CA, a signing certificate, a TLS server on 127.0.0.1, or a
 * certificate that is no CA (`CA:FALSE`) and has no key usage at all, which OpenSSL's issuer
 * check (`checkIssued()`) accepts as an issuer: only its CA flag tells it from one.
 */
export type CertificateRole = 'ca' | 'leaf' | 'server' | 'non-ca';

export interface CertificateOptions {
  /** OpenSSL `-subj`, e.g. `'/CN=attacker.example'`. */
  subject: string;
  /** @default 'leaf' */
  role?: CertificateRole;
  /** Days of validity from now. @default 30 */
  days?: number;
  /** @default 'rsa' (2048 bits) */
  key?: 'rsa' | 'ec';
  /** Use this private key (PEM) instead of a new one. */
  keyPem?: string;
}

const CONFIG = `
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1
[non-ca]
basicConstraints = critical,CA:FALSE
subjectKeyIdentifier = hash
`;

/**
 * Certificates made with OpenSSL in a temporary folder: self-signed roots, and certificates
 * (CAs, signing certificates, TLS servers) issued by one another, as a PKI would issue them.
 */
export class TestCertificates {
  private readonly dir = mkdtempSync(join(tmpdir(), 'pw-test-certs-'));
  private readonly config = join(this.dir, 'openssl.cnf');
  private count = 0;

  constructor() {
    writeFileSync(this.config, CONFIG);
  }

  /** A self-signed certificate: a root CA (`role: 'ca'`) or a forged signing certificate. */
  selfSigned(options: CertificateOptions): TestCertificate {
    const { name, keyPath } = this.newKey(options);
    const certPath = join(this.dir, `${name}.crt`);
    this.openssl(
      ['req', '-x509', '-new', '-config', this.config, '-key', keyPath]
        .concat(['-extensions', options.role ?? 'leaf', '-subj', options.subject, '-sha256'])
        .concat(['-days', String(options.days ?? 30), '-out', certPath]),
    );
    return { keyPem: readFileSync(keyPath, 'utf8'), certPem: readFileSync(certPath, 'utf8') };
  }

  /** A certificate issued (and signed) by `issuer`. */
  issue(issuer: TestCertificate, options: CertificateOptions): TestCertificate {
    const { name, keyPath } = this.newKey(options);
    const csrPath = join(this.dir, `${name}.csr`);
    const certPath = join(this.dir, `${name}.crt`);
    const issuerCert = join(this.dir, `${name}.issuer.crt`);
    const issuerKey = join(this.dir, `${name}.issuer.key`);
    writeFileSync(issuerCert, issuer.certPem);
    writeFileSync(issuerKey, issuer.keyPem);
    this.openssl(
      ['req', '-new', '-config', this.config, '-key', keyPath].concat([
        '-subj',
        options.subject,
        '-out',
        csrPath,
      ]),
    );
    this.openssl(
      ['x509', '-req', '-in', csrPath, '-CA', issuerCert, '-CAkey', issuerKey]
        .concat(['-set_serial', `0x${randomBytes(8).toString('hex')}`, '-sha256'])
        .concat(['-days', String(options.days ?? 30), '-extfile', this.config])
        .concat(['-extensions', options.role ?? 'leaf', '-out', certPath]),
    );
    return { keyPem: readFileSync(keyPath, 'utf8'), certPem: readFileSync(certPath, 'utf8') };
  }

  /** Removes the folder. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private newKey(options: CertificateOptions): { name: string; keyPath: string } {
    const name = `cert-${(this.count += 1)}`;
    const keyPath = join(this.dir, `${name}.key`);
    if (options.keyPem !== undefined) {
      writeFileSync(keyPath, options.keyPem);
    } else if (options.key === 'ec') {
      this.openssl(
        ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'].concat([
          '-out',
          keyPath,
        ]),
      );
    } else {
      this.openssl(
        ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'].concat([
          '-out',
          keyPath,
        ]),
      );
    }
    return { name, keyPath };
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'pipe' });
  }
}
