/**
 * Texts of renamed options: the one-time deprecation warning and the startup error when both
 * names are given. Each names where the option is given, both names and the unit or shape.
 */
/** What the texts name of a rename: both names, where it is given, the unit or shape. */
interface Rename {
  readonly from: string;
  readonly to: string;
  readonly where: string;
  readonly unit?: string;
}

function unit(rename: Rename): string {
  return rename.unit ? ` (${rename.unit})` : '';
}

/** The deprecation warning of an old name. */
export function deprecatedOptionMessage(rename: Rename): string {
  return (
    `${rename.where}: \`${rename.from}\`${unit(rename)} is deprecated and will be removed in 2.0: ` +
    `use \`${rename.to}\`.`
  );
}

/** Both names given with different values: which one to keep. */
export function conflictingRenameMessage(rename: Rename, context: string): string {
  return (
    `${context}: \`${rename.from}\` and \`${rename.to}\` are both given, with different values. ` +
    `\`${rename.from}\` is the deprecated name of \`${rename.to}\`${unit(rename)}: ` +
    `remove \`${rename.from}\` and keep \`${rename.to}\`.`
  );
}
