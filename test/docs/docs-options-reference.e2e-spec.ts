import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compileDocScripts,
  libCopy,
  removedAfterSuite,
  ROOT,
  runDocScript,
} from '../support/doc-scripts';

const MODULE_OPTIONS = 'lib/options/webhooks-module-options.interface.ts';
const MAX_ATTEMPTS_DOC = `  /**
   * Attempts before an event becomes \`dead\`. With the default delays, 25 attempts span
   * about 20 to 40 hours, longer than a day-long outage of whatever your handlers call.
   * @default 25
   */
  maxAttempts?: number;`;

/** Replaces one exact passage of a file in the copy, failing when the passage is not there. */
function edit(root: string, file: string, from: string, to: string): void {
  const text = readFileSync(join(root, file), 'utf8');
  expect(text).toContain(from);
  writeFileSync(join(root, file), text.replace(from, to));
}

// NOTE: each run builds a TypeScript program over lib/; on a busy machine that takes a while.
jest.setTimeout(180_000);

describe('options reference (npm run docs:options)', () => {
  const copy = removedAfterSuite(libCopy);

  beforeAll(() => compileDocScripts(), 120_000);

  it('docs/configuration.md in the repository is what the generator writes', () => {
    const check = runDocScript('options-reference', ['--check', '--root', ROOT]);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
  });

  it('writes one table per options interface, nested ones at their path; --check then fails with the first differing line when an option changes', () => {
    const root = copy();
    expect(runDocScript('options-reference', ['--root', root]).code).toBe(0);
    const written = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    // NOTE: the page in the repository was written by another run: the same source, the same text.
    expect(written).toBe(readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8'));

    for (const heading of [
      'WebhooksModuleOptions',
      'WebhookRetryOptions',
      'WebhookAlertOptions',
      'WebhooksModuleExtras',
      'WebhookAdminRoutesOptions',
      'WebhooksRouterOptions',
      'BaseEndpointOptions',
      'StripeEndpointOptions',
      'StripeStatusClientOptions',
      'SberStatusClientOptions',
      'BullmqTransportOptions',
    ]) {
      expect(written).toContain(`### \`${heading}\`\n`);
    }
    expect(written).toContain(
      '| `dispatch.retry.maxAttempts` | `number` | 25 | Attempts before an event becomes `dead`.',
    );
    expect(written).toContain('| `secret` | `string \\| readonly string[]` | required |');
    // Partial<WebhookAcknowledgement> makes each of its options optional; a union's are
    // required only in their alternative (Sber's login and password, or a token).
    expect(written).toContain('| `acknowledgement.status` | `number` |  | HTTP status. |');
    expect(written).toContain('| `api.token` | `string` | required in its alternative |');
    // {@link queue} in bullmq-transport.options.ts is written as its name.
    expect(written).toContain('Give this or queue. |');
    expect(written).not.toContain('{@link');

    edit(root, MODULE_OPTIONS, '   * @default 25\n', '   * @default 30\n');
    const check = runDocScript('options-reference', ['--check', '--root', root]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('docs/configuration.md is stale: run npm run docs:options');
    expect(check.stderr).toMatch(/- \| `dispatch\.retry\.maxAttempts` \| `number` \| 25 \|/);
    expect(check.stderr).toMatch(/\+ \| `dispatch\.retry\.maxAttempts` \| `number` \| 30 \|/);
  });

  it('--check fails when docs/configuration.md is missing', () => {
    const check = runDocScript('options-reference', ['--check', '--root', copy()]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('docs/configuration.md is stale (missing)');
  });

  it('fails listing every option without JSDoc, and writes nothing', () => {
    const root = copy();
    edit(root, MODULE_OPTIONS, MAX_ATTEMPTS_DOC, '  maxAttempts?: number;');
    edit(
      root,
      'lib/bullmq/bullmq-transport.options.ts',
      "  /**\n   * BullMQ's rate limit for this worker: at most `max` jobs per `duration` ms.\n   * @advanced\n   */\n",
      '',
    );

    const run = runDocScript('options-reference', ['--root', root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('2 option(s) without JSDoc');
    expect(run.stderr).toMatch(
      /lib\/options\/webhooks-module-options\.interface\.ts:\d+: WebhookRetryOptions\.maxAttempts/,
    );
    expect(run.stderr).toMatch(
      /lib\/bullmq\/bullmq-transport\.options\.ts:\d+: BullmqTransportOptions\.limiter/,
    );
    expect(existsSync(join(root, 'docs/configuration.md'))).toBe(false);
  });
});
