import { SigningInput } from './provider-descriptor.interface';
import { SignedDelivery } from './signed-delivery';

/** A command-line input that does not fit the provider; the CLI reports it as a usage error. */
export class SigningInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningInputError';
  }
}

/**
 * `--secret`, required.
 * @throws SigningInputError when it is missing or empty.
 */
export function requireSecret(kind: string, input: SigningInput): string {
  if (input.secret === undefined || input.secret === '') {
    throw new SigningInputError(`--provider ${kind} needs --secret`);
  }
  return input.secret;
}

/**
 * The payload file as a JSON object.
 * @param what what the object should be, for the error.
 * @throws SigningInputError when the file holds anything else.
 */
export function jsonObject(
  kind: string,
  input: SigningInput,
  what: string,
): Record<string, unknown> {
  if (input.json === null || typeof input.json !== 'object' || Array.isArray(input.json)) {
    throw new SigningInputError(`--provider ${kind} takes a JSON object in --file: ${what}`);
  }
  return input.json as Record<string, unknown>;
}

/**
 * A flat JSON object as form fields; numbers and booleans are written as JSON writes them.
 * @throws SigningInputError when a field is an object, a list or null.
 */
export function formFields(
  kind: string,
  input: SigningInput,
  what: string,
): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(jsonObject(kind, input, what))) {
    if (typeof value === 'string') {
      fields[name] = value;
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      fields[name] = JSON.stringify(value);
    } else {
      throw new SigningInputError(
        `--provider ${kind} sends form fields: "${name}" in --file must be a string, number or boolean`,
      );
    }
  }
  return fields;
}

/**
 * A flag's value when it is one of `allowed` (or not given).
 * @throws SigningInputError listing the values it takes.
 */
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new SigningInputError(`--${flag} takes ${allowed.join(' or ')} (got "${value}")`);
  }
  return value as T | undefined;
}

/**
 * A POST of the payload file's exact text as JSON, with the provider's signature headers: what
 * the providers that sign a JSON body send.
 */
export function jsonPost(
  provider: string,
  input: Pick<SigningInput, 'text'>,
  signature: Readonly<Record<string, string>>,
): SignedDelivery {
  return {
    provider,
    method: 'POST',
    body: input.text,
    headers: { 'content-type': 'application/json', ...signature },
  };
}
