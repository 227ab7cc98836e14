import { readFileSync } from 'node:fs';
import { SignedDelivery } from '../../providers/signed-delivery';
import { flagOption, integerOption, OptionSpecs, ParsedCommand, stringOption } from '../arguments';
import { CLI_NAME, CliCommand, COMMON_HELP } from '../cli-command';
import { CliFailure, CliUsageError, EXIT_FAILURE, EXIT_OK } from '../cli-errors';
import { CliIo, printExactJson, printJson, printLines } from '../cli-io';
import { safeText } from '../../telemetry/safe-text';
import { PROVIDER_DESCRIPTORS } from '../../providers/descriptors';
import { PROVIDER_FLAG_NAMES, providerDescriptor, readFlagFile } from '../signing';

const SEND_TIMEOUT_MS = 30_000;

const SIGNING_OPTIONS: OptionSpecs = {
  provider: { type: 'string' },
  secret: { type: 'string' },
  'secret-env': { type: 'string' },
  file: { type: 'string' },
  timestamp: { type: 'string' },
  ...Object.fromEntries(PROVIDER_FLAG_NAMES.map((name) => [name, { type: 'string' as const }])),
};

function providersHelp(): string {
  return PROVIDER_DESCRIPTORS.map(({ kind, signing }) => {
    const lines = [`  ${kind} — ${signing.title}`];
    lines.push(`      --secret: ${signing.secret ?? 'not used'}`);
    if (signing.timestamp) lines.push(`      --timestamp: ${signing.timestamp}`);
    lines.push(`      --file: ${signing.payload}`);
    for (const flag of signing.flags) {
      lines.push(`      --${flag.name} ${flag.value}: ${flag.help}`);
    }
    return lines.join('\n');
  }).join('\n');
}

const SIGNING_HELP = `Options:
  --provider <kind>      the provider to sign as (see below)
  --secret <secret>      the provider's signing secret, as the endpoint is configured with it
  --secret-env <name>    read the secret from this environment variable instead (keeps it out
                         of the shell history and the process list)
  --file <payload.json>  the payload, JSON, used as written (without the file's final line
                         break); "-" reads standard input
  --timestamp <seconds>  the signed time in Unix seconds, where the scheme signs one (default now)
${COMMON_HELP}

Providers and what they take:
${providersHelp()}`;

async function readPayload(command: string, parsed: ParsedCommand, io: CliIo) {
  const file = stringOption(parsed, 'file');
  if (file === undefined) {
    throw new CliUsageError(
      '--file <payload.json> is required ("-" reads standard input)',
      command,
    );
  }
  let text: string;
  try {
    const content = file === '-' ? await io.readStdin() : readFileSync(file, 'utf8');
    // NOTE: the line break editors end a file with is not part of the payload.
    text = content.replace(/\r?\n$/, '');
  } catch (error) {
    throw new CliUsageError(
      `cannot read --file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      command,
    );
  }
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch (error) {
    throw new CliUsageError(
      `--file ${file} is not valid JSON: ${(error as Error).message}`,
      command,
    );
  }
}

function secretOf(command: string, parsed: ParsedCommand, io: CliIo): string | undefined {
  const secret = stringOption(parsed, 'secret');
  const variable = stringOption(parsed, 'secret-env');
  if (secret !== undefined && variable !== undefined) {
    throw new CliUsageError('give --secret or --secret-env, not both', command);
  }
  if (variable === undefined) {
    return secret;
  }
  const value = io.env[variable];
  if (value === undefined || value === '') {
    throw new CliUsageError(`--secret-env ${variable}: the variable is not set`, command);
  }
  return value;
}

/**
 * Signs the payload file as the provider would send it.
 * @throws CliUsageError when an option does not fit the provider or the file does not.
 */
async function signedDelivery(
  command: string,
  parsed: ParsedCommand,
  io: CliIo,
  url?: string,
): Promise<SignedDelivery> {
  const { kind, signing } = (() => {
    try {
      return providerDescriptor(stringOption(parsed, 'provider'));
    } catch (error) {
      throw new CliUsageError((error as Error).message, command);
    }
  })();
  const secret = secretOf(command, parsed, io);
  if (secret !== undefined && signing.secret === null) {
    throw new CliUsageError(`--provider ${kind} takes no --secret (${signing.title})`, command);
  }
  const alternative = signing.secretAlternative;
  if (
    secret === undefined &&
    signing.secret !== null &&
    (alternative === undefined || parsed.values[alternative] === undefined)
  ) {
    throw new CliUsageError(
      `--provider ${kind} needs --secret (or --secret-env): ${signing.secret}`,
      command,
    );
  }
  const timestamp = integerOption(command, parsed, 'timestamp', 0);
  if (timestamp !== undefined && signing.timestamp === null) {
    throw new CliUsageError(`--provider ${kind} signs no time: leave out --timestamp`, command);
  }
  const own = new Set(signing.flags.map((flag) => flag.name));
  const foreign = PROVIDER_FLAG_NAMES.filter(
    (name) => parsed.values[name] !== undefined && !own.has(name),
  );
  if (foreign.length > 0) {
    throw new CliUsageError(
      `--provider ${kind} does not take --${foreign.join(', --')}` +
        (own.size > 0 ? ` (it takes --${[...own].join(', --')})` : ''),
      command,
    );
  }
  const { text, json } = await readPayload(command, parsed, io);
  const options = Object.fromEntries([...own].map((name) => [name, stringOption(parsed, name)]));
  try {
    const readFile = (flag: string) => readFlagFile(flag, options[flag]);
    return signing.sign({ text, json, secret, timestamp, options, url, readFile });
  } catch (error) {
    throw new CliUsageError((error as Error).message, command);
  }
}

/** `sign`: prints the delivery a provider would send for a payload file. */
export const signCommand: CliCommand = {
  name: 'sign',
  summary: 'print a correctly signed delivery (body and headers) for a provider',
  maxPositionals: 0,
  options: SIGNING_OPTIONS,
  help: `Usage: ${CLI_NAME} sign --provider <kind> --secret <secret> --file <payload.json> [--timestamp <s>] [--json]

Prints the delivery the provider would send for the payload: the method, the headers (the
signature included) and the exact body. With --json: { provider, method, headers, body,
eventId }, eventId being the id the endpoint stores the event under (settled() takes it).
"send" posts exactly this.

${SIGNING_HELP}

Examples:
  ${CLI_NAME} sign --provider stripe --secret whsec_… --file event.json
  ${CLI_NAME} sign --provider tbank --secret-env TBANK_PASSWORD --file notification.json --json`,
  async run(parsed, io) {
    const delivery = await signedDelivery(this.name, parsed, io);
    if (flagOption(parsed, 'json')) {
      printExactJson(io, delivery);
      return EXIT_OK;
    }
    const headers = Object.entries(delivery.headers).map(([name, value]) => `${name}: ${value}`);
    printLines(
      io,
      delivery.method === 'GET'
        ? [`GET ?${delivery.body}`, ...headers]
        : ['POST', ...headers, '', delivery.body],
    );
    return EXIT_OK;
  },
};

/** `send <url>`: signs a payload file and sends it as the provider would; 0 only on 2xx. */
export const sendCommand: CliCommand = {
  name: 'send',
  summary: 'post a signed delivery to a URL (a provider\'s "send test webhook")',
  maxPositionals: 1,
  options: SIGNING_OPTIONS,
  help: `Usage: ${CLI_NAME} send <url> --provider <kind> --secret <secret> --file <payload.json> [--json]

Signs the payload as "sign" does and sends it to <url> the way the provider would (the exact
body bytes, its headers, no redirects followed), then prints the answer's status and body.
Exits with 0 only when the answer is 2xx. The local equivalent of a provider's "send test
webhook" button: the URL is the endpoint's, e.g. http://localhost:3000/webhooks/stripe.

${SIGNING_HELP}

Examples:
  ${CLI_NAME} send http://localhost:3000/webhooks/stripe --provider stripe --secret whsec_… --file event.json
  ${CLI_NAME} send http://localhost:3000/webhooks/sber --provider sber --secret token --method POST --file callback.json`,
  async run(parsed, io) {
    const url = parsed.positionals[0];
    if (url === undefined || !/^https?:\/\//i.test(url)) {
      throw new CliUsageError(
        url === undefined
          ? 'give the URL to send to: send <url> …'
          : `the URL must start with http:// or https:// (got "${url}")`,
        this.name,
      );
    }
    const delivery = await signedDelivery(this.name, parsed, io, url);
    const target =
      delivery.method === 'GET' ? `${url}${url.includes('?') ? '&' : '?'}${delivery.body}` : url;
    let response: Response;
    try {
      response = await fetch(target, {
        method: delivery.method,
        headers: delivery.headers,
        body: delivery.method === 'GET' ? undefined : delivery.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliFailure(
        `could not send to ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    const body = await response.text();
    const ok = response.status >= 200 && response.status < 300;
    if (flagOption(parsed, 'json')) {
      printJson(io, {
        ok,
        status: response.status,
        body,
        delivery: { ...delivery, url: target },
      });
    } else {
      printLines(io, [
        safeText(`HTTP ${response.status} ${response.statusText}`.trimEnd()),
        ...(body ? [safeText(body, { keepLineFeeds: true })] : []),
      ]);
    }
    if (!ok) {
      io.stderr.write(
        `${CLI_NAME}: error: ${url} answered ${response.status}` +
          (response.status >= 300 && response.status < 400
            ? ' (a redirect: providers count it as a failure; send to the final URL)'
            : ', not 2xx') +
          '\n',
      );
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  },
};
