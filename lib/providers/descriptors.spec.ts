import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_DESCRIPTORS, descriptorNamed, descriptorOfKind } from './descriptors';
import * as rootEndpoints from './endpoints';
import { ProviderDescriptor } from './provider-descriptor.interface';

/** What a provider folder's index.ts exports, by name. */
type FolderExports = Readonly<Record<string, unknown>>;

/** The provider folders: every folder here but the generated catalog/. */
const FOLDERS = readdirSync(__dirname, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'catalog')
  .map((entry) => entry.name)
  .sort();

function loadFolder(folder: string): FolderExports | undefined {
  if (!existsSync(join(__dirname, folder, 'index.ts'))) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(join(__dirname, folder)) as FolderExports;
}

function isDescriptor(value: unknown): value is ProviderDescriptor {
  const candidate = value as Partial<ProviderDescriptor> | null;
  return typeof candidate?.kind === 'string' && typeof candidate.signing?.sign === 'function';
}

/** The descriptor a folder's export derives, when the export is a definition. */
function descriptorOf(value: unknown): ProviderDescriptor | undefined {
  const derived = (value as { descriptor?: unknown } | null)?.descriptor;
  return isDescriptor(derived) ? derived : undefined;
}

function endpointFactories(exports: FolderExports): string[] {
  return Object.entries(exports)
    .filter(([name, value]) => typeof value === 'function' && /^[a-z]\w*Endpoint$/.test(name))
    .map(([name]) => name)
    .filter((name) => name !== 'defineEndpoint')
    .sort();
}

/** What is wrong with each folder: an index.ts with one endpoint factory and one definition. */
function folderProblems(
  folders: readonly string[],
  load: (folder: string) => FolderExports | undefined,
): string[] {
  return folders.flatMap((folder) => {
    const exports = load(folder);
    if (!exports) return [`${folder}: no index.ts`];
    const factories = endpointFactories(exports);
    const descriptors = Object.values(exports).filter((value) => descriptorOf(value));
    return [
      ...(factories.length === 1 ? [] : [`${folder}: ${factories.length} endpoint factories`]),
      ...(descriptors.length === 1 ? [] : [`${folder}: ${descriptors.length} definitions`]),
    ];
  });
}

describe('provider descriptors', () => {
  it('finds in every provider folder an index.ts with one endpoint factory and one definition', () => {
    expect(FOLDERS.length).toBeGreaterThan(0);
    expect(folderProblems(FOLDERS, loadFolder)).toEqual([]);
  });

  it('fails a folder whose index.ts exports no definition, or that has no index.ts', () => {
    const acmeEndpoint = () => undefined;
    const acmeProvider = { descriptor: PROVIDER_DESCRIPTORS[0] };
    const folders: Record<string, FolderExports> = {
      whole: { acmeEndpoint, acmeProvider },
      bare: { acmeEndpoint },
    };
    expect(folderProblems(['whole', 'bare', 'missing'], (folder) => folders[folder])).toEqual([
      'bare: 0 definitions',
      'missing: no index.ts',
    ]);
  });

  it("lists exactly the folders' descriptors, in folder order, each kind once", () => {
    const expected = FOLDERS.map((folder) =>
      Object.values(loadFolder(folder) ?? {})
        .map(descriptorOf)
        .find(Boolean),
    );
    expect(PROVIDER_DESCRIPTORS).toHaveLength(expected.length);
    PROVIDER_DESCRIPTORS.forEach((descriptor, index) => expect(descriptor).toBe(expected[index]));
    const kinds = PROVIDER_DESCRIPTORS.map((descriptor) => descriptor.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it("exports from the root entry every folder's endpoint factory, and no other", () => {
    const folderFactories = FOLDERS.flatMap((folder) => {
      const exports = loadFolder(folder) ?? {};
      return endpointFactories(exports).map((name) => [name, exports[name]] as const);
    });
    expect(endpointFactories(rootEndpoints)).toEqual(folderFactories.map(([name]) => name).sort());
    for (const [name, factory] of folderFactories) {
      expect(rootEndpoints[name as keyof typeof rootEndpoints]).toBe(factory);
    }
  });

  it('finds a descriptor by kind, and by kind or alias in any case', () => {
    expect(descriptorOfKind('tbank')?.name).toBe('T-Bank');
    expect(descriptorOfKind('tinkoff')).toBeUndefined();
    expect(descriptorOfKind('github')).toBeUndefined();
    expect(descriptorNamed('Tinkoff')?.kind).toBe('tbank');
    expect(descriptorNamed('svix')?.kind).toBe('standard');
    expect(descriptorNamed('constructor')).toBeUndefined();
  });

  it('lets no alias name two providers or shadow a kind', () => {
    const names = PROVIDER_DESCRIPTORS.flatMap((descriptor) => [
      descriptor.kind,
      ...(descriptor.aliases ?? []),
    ]);
    expect(new Set(names).size).toBe(names.length);
  });
});
