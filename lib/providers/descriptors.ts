import { PROVIDER_DESCRIPTORS } from './catalog/definitions';
import { ProviderDescriptor } from './provider-descriptor.interface';

/**
 * One descriptor per provider folder, derived from its definition, in the order the CLI lists
 * them (by folder name). Retention reads the retry horizons from here and the CLI's `sign`/`send`
 * sign through it. The list is generated: each folder's index.ts re-exports its definition, and
 * `npm run providers:catalog` writes catalog/definitions.ts from the folders, so a new provider
 * adds its folder and regenerates the catalog. `npm run docs:check` fails while the catalog is
 * stale, and `descriptors.spec.ts` while a folder has no definition.
 */
export { PROVIDER_DESCRIPTORS };

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
