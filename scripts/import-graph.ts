/**
 * The import graph of `lib/`: every relative import, `export … from`, `import type`, `require()`
 * and `import()` between the package's own files (specs left out), folded into folders (the
 * first path segment under `lib/`; the files at the root are the folder `.`). It prints the
 * figures the architecture is held to: folders, the edges between them, folder cycles and the
 * edges that close them, file cycles with their members.
 *
 *   npm run -s docs:scripts && node .tmp/scripts/import-graph.js     prints the figures
 *   --json                                                            prints them as JSON
 *   --root <dir>                                                      reads <dir>/lib
 *   --rooms store                                                     the rooms of lib/store/
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { argValue } from './docs-support';

/** What the graph of one `lib/` tree holds. */
export interface ImportGraph {
  /** Files by path relative to `lib/`, each with the files it imports. */
  files: Map<string, Set<string>>;
  /** Folders, each with the folders it imports (never itself). */
  folders: Map<string, Set<string>>;
}

/** The figures printed and asserted. */
export interface ImportGraphFigures {
  files: number;
  folders: number;
  folderEdges: number;
  /** Folder groups that import each other, each sorted, largest first. */
  folderCycles: string[][];
  /** Folder edges inside those groups: each one is a back-edge to remove. */
  cycleEdges: string[];
  /** File groups that import each other, each sorted. */
  fileCycles: string[][];
}

function sourceFiles(dir: string, base = dir): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full, base);
      const code = entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts');
      return code && !entry.name.endsWith('.spec.ts') ? [path.relative(base, full)] : [];
    })
    .sort();
}

function resolveImport(from: string, specifier: string, known: Set<string>): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.normalize(path.join(path.dirname(from), specifier)).replace(/\.js$/, '');
  return [`${target}.ts`, path.join(target, 'index.ts')].find((file) => known.has(file));
}

/** The folder a file under `lib/` belongs to. */
export function folderOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.length > 1 ? parts[0] : '.';
}

/** Reads `<root>/lib` into its file and folder graphs. */
export function readImportGraph(root: string): ImportGraph {
  const lib = path.join(root, 'lib');
  const names = sourceFiles(lib);
  const known = new Set(names);
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const file of names) {
    const text = fs.readFileSync(path.join(lib, file), 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      const target = resolveImport(file, fileName, known);
      if (target !== undefined && target !== file) targets.add(target);
    }
    files.set(file, targets);
    const folder = folderOf(file);
    const out = folders.get(folder) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== folder) out.add(folderOf(target));
    folders.set(folder, out);
  }
  return { files, folders };
}

/**
 * The rooms of one folder (its sub-folders; its own files are the room `.`), each with the rooms
 * it imports: the same check one level down, for a folder as large as `store/`.
 */
export function roomsOf(graph: ImportGraph, folder: string): Map<string, Set<string>> {
  const roomOf = (file: string): string | undefined => {
    const parts = file.split(path.sep);
    if (parts[0] !== folder) return undefined;
    return parts.length > 2 ? parts[1] : '.';
  };
  const rooms = new Map<string, Set<string>>();
  for (const [file, targets] of graph.files) {
    const room = roomOf(file);
    if (room === undefined) continue;
    const out = rooms.get(room) ?? new Set<string>();
    for (const target of targets) {
      const other = roomOf(target);
      if (other !== undefined && other !== room) out.add(other);
    }
    rooms.set(room, out);
  }
  return rooms;
}

/** Strongly connected groups of more than one node (Tarjan), each sorted. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** The figures of a graph. */
export function figuresOf(graph: ImportGraph): ImportGraphFigures {
  const folderCycles = cycles(graph.folders);
  const groupOf = new Map<string, number>();
  folderCycles.forEach((group, at) => group.forEach((folder) => groupOf.set(folder, at)));
  const cycleEdges: string[] = [];
  let folderEdges = 0;
  for (const [folder, targets] of [...graph.folders].sort(([a], [b]) => a.localeCompare(b))) {
    folderEdges += targets.size;
    for (const target of [...targets].sort()) {
      const group = groupOf.get(folder);
      if (group !== undefined && group === groupOf.get(target)) {
        cycleEdges.push(`${folder} → ${target}`);
      }
    }
  }
  return {
    files: graph.files.size,
    folders: graph.folders.size,
    folderEdges,
    folderCycles,
    cycleEdges,
    fileCycles: cycles(graph.files),
  };
}

function print(figures: ImportGraphFigures): string {
  const lines = [
    `files ${figures.files}, folders ${figures.folders}, folder edges ${figures.folderEdges}`,
    `folder cycles ${figures.folderCycles.length} (${figures.cycleEdges.length} edges in them)`,
    ...figures.folderCycles.map((group) => `  ${group.join(' ↔ ')}`),
    ...figures.cycleEdges.map((edge) => `    ${edge}`),
    `file cycles ${figures.fileCycles.length}`,
    ...figures.fileCycles.map((group) => `  ${group.join(' ↔ ')}`),
  ];
  return `${lines.join('\n')}\n`;
}

function printRooms(folder: string, rooms: Map<string, Set<string>>): string {
  const lines = [...rooms]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([room, targets]) => `  ${folder}/${room} → ${[...targets].sort().join(', ') || '(none)'}`,
    );
  const loops = cycles(rooms).map((group) => `  cycle: ${group.join(' ↔ ')}`);
  return `rooms of ${folder}/ ${rooms.size}, cycles ${loops.length}\n${[...lines, ...loops].join('\n')}\n`;
}

if (require.main === module) {
  const graph = readImportGraph(argValue(process.argv, '--root') ?? process.cwd());
  const folder = argValue(process.argv, '--rooms');
  if (folder !== undefined) {
    process.stdout.write(printRooms(folder, roomsOf(graph, folder)));
    process.exit(0);
  }
  const figures = figuresOf(graph);
  process.stdout.write(
    process.argv.includes('--json') ? `${JSON.stringify(figures, null, 2)}\n` : print(figures),
  );
}
