/**
 * Texts of renamed options: the one-time deprecation warning and the startup error when both
 * names are given. Each names where the option is given, both names and the unit or shape.
 */
import type { OptionRename } from './deprecated-options';

function unit(rename: OptionRename): string {
  return rename.unit ? ` (${rename.unit})` : '';
}

/** The deprecation warning of an old name. */
export function deprecatedOptionMessage(rename: OptionRename): string {
  return (
    `${rename.where}: \`${rename.from}\`${unit(rename)} is deprecated and will be removed in 2.0: ` +
    `use \`${rename.to}\`.`
  );
}

/** Both names given with different values: which one to keep. */
export function conflictingRenameMessage(rename: OptionRename, context: string): string {
  return (
    `${context}: \`${rename.from}\` and \`${rename.to}\` are both given, with different values. ` +
    `\`${rename.from}\` is the deprecated name of \`${rename.to}\`${unit(rename)}: ` +
    `remove \`${rename.from}\` and keep \`${rename.to}\`.`
  );
}
