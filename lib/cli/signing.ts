import { readFileSync } from 'node:fs';
import { descriptorNamed, PROVIDER_DESCRIPTORS } from '../providers/descriptors';
import { ProviderDescriptor } from '../providers/provider-descriptor.interface';
import { CliUsageError } from './cli-errors';

/** The kinds `--provider` takes, in the order the help lists them. */
export const PROVIDER_KINDS: readonly string[] = PROVIDER_DESCRIPTORS.map(
  (descriptor) => descriptor.kind,
);

/** Every option a provider may take, for the argument parser. */
export const PROVIDER_FLAG_NAMES: readonly string[] = [
  ...new Set(
    PROVIDER_DESCRIPTORS.flatMap((descriptor) => descriptor.signing.flags.map((flag) => flag.name)),
  ),
];

/**
 * The descriptor of a provider kind (or alias) given to `--provider`.
 * @throws CliUsageError listing the supported kinds.
 */
export function providerDescriptor(kind: string | undefined): ProviderDescriptor {
  if (kind === undefined || kind === '') {
    throw new CliUsageError(`--provider is required: one of ${PROVIDER_KINDS.join(', ')}`);
  }
  const descriptor = descriptorNamed(kind);
  if (!descriptor) {
    throw new CliUsageError(`unknown --provider "${kind}": one of ${PROVIDER_KINDS.join(', ')}`);
  }
  return descriptor;
}

/**
 * Reads the file a provider flag names (`--private-key key.pem`).
 * @throws CliUsageError naming the flag and the reason.
 */
export function readFlagFile(flag: string, path: string | undefined): string {
  if (path === undefined) {
    throw new CliUsageError(`--${flag} needs a file name`);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliUsageError(
      `cannot read --${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}
