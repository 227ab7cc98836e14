import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstSentence } from '../../scripts/signer-table';
import {
  compileDocScripts,
  libCopy,
  removedAfterSuite,
  ROOT,
  runDocScript,
} from '../support/doc-scripts';

const PAGE = 'docs/testing.md';

/** A copy of lib/ with the testing page, whose table the script reads and writes. */
function pageCopy(): string {
  const root = libCopy();
  mkdirSync(join(root, 'docs'));
  copyFileSync(join(ROOT, PAGE), join(root, PAGE));
  return root;
}

function edit(root: string, file: string, change: (text: string) => string): void {
  writeFileSync(join(root, file), change(readFileSync(join(root, file), 'utf8')));
}

// NOTE: the script builds a TypeScript program over the provider folders; on a busy machine
// that takes a while.
jest.setTimeout(180_000);

describe('the table of signers in docs/testing.md (npm run docs:signers)', () => {
  const copy = removedAfterSuite(pageCopy);

  beforeAll(() => compileDocScripts(), 120_000);

  it('is what the generator writes, with a row for every provider folder', () => {
    const check = runDocScript('signer-table', ['--check', '--root', ROOT]);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    const page = readFileSync(join(ROOT, PAGE), 'utf8');
    expect(page).toContain(
      '| Razorpay | `signRazorpayDelivery({ payload, secret, … })`: Signs a delivery the way ' +
        'Razorpay does:',
    );
    expect(page).toContain('`signStripeEventNotification({ secret, type, … })`');
    // NOTE: each fixture with its parameters, an options object by its fields.
    expect(page).toContain('| `yookassaPayment(status, { id, status, paid, amount, ');
    expect(page).toContain('`goCardlessFixtures.webhook(events)`');
  });

  it("fails --check when a row is missing or a signer's options change, until written again", () => {
    const root = copy();
    edit(root, PAGE, (page) => page.replace(/^\| Mollie \|.*\n/m, ''));
    edit(root, 'lib/providers/square/square.signer.ts', (text) =>
      text.replace('  notificationUrl: string;', '  notificationUrl?: string;'),
    );

    const stale = runDocScript('signer-table', ['--check', '--root', root]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      "docs/testing.md's table of signers is stale: run npm run docs:signers",
    );

    expect(runDocScript('signer-table', ['--root', root])).toMatchObject({ code: 0, stderr: '' });
    const page = readFileSync(join(root, PAGE), 'utf8');
    expect(page).toMatch(/^\| Mollie \| `signMollieDelivery\(\{ payload, signingSecret \}\)`/m);
    expect(page).toContain('`signSquareDelivery({ payload, signatureKey, … })`');
    expect(runDocScript('signer-table', ['--check', '--root', root]).code).toBe(0);
  });

  it('says where the table goes when the page has no markers, and writes nothing', () => {
    const root = copy();
    edit(root, PAGE, (page) => page.replace('<!-- signers:start -->', ''));
    const before = readFileSync(join(root, PAGE), 'utf8');

    const run = runDocScript('signer-table', ['--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'docs/testing.md has no <!-- signers:start --> … <!-- signers:end -->',
    );
    expect(readFileSync(join(root, PAGE), 'utf8')).toBe(before);
  });

  it.each([
    [
      'Signs a delivery the way X does: `a.b` over `${id}.${ts}`. Then more.',
      'Signs a delivery the way X does: `a.b` over `${id}.${ts}`.',
    ],
    [
      'Builds it (e.g. a refund) from {@link stripeFixtures}. More.',
      'Builds it (e.g. a refund) from `stripeFixtures`.',
    ],
    ['No full stop at all', 'No full stop at all'],
  ])('reads the first sentence of %j', (text, sentence) => {
    expect(firstSentence(text)).toBe(sentence);
  });
});
