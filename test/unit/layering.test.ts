// The layer rules of electron/engine/README.md and architecture.md "Folders", read off the import
// graph of the whole tree: static imports, type-only imports, re-exports and import() alike, each
// resolved to the file it names (a lint pattern on the import's text cannot tell '../server' the
// folder from './server' the file).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['bin', 'electron', 'native-models', 'renderer', 'scripts', 'test'];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.mjs', '.js', '.json'];

/** What the files under `from` may import of the repository (paths from its root). */
const LAYERS = [
  {
    from: 'electron/engine/',
    rule: 'the engine imports only itself, the contract and native-models (never server, main, preload, cli or the renderer)',
    // bin/tsx-cache.mjs: compute/worker-entry.mjs, the worker's launcher outside the bundle, starts tsx
    // the way bin/envace.mjs does (its cache in the data home).
    allowed: ['electron/engine/', 'electron/contract/', 'native-models/', 'package.json', 'bin/tsx-cache.mjs'],
  },
  { from: 'native-models/', rule: 'native-models imports nothing of electron/ or the renderer', allowed: ['native-models/'] },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.isFile() && SOURCE.test(entry.name) ? [full] : [];
  });
}

/** Every module name a file imports, with the kinds of import that name a string. */
function specifiers(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isFile = (file: string) => fs.existsSync(file) && fs.statSync(file).isFile();

/** The file a relative import names, as the bundler and tsx resolve it; null if none. */
function resolve(from: string, specifier: string): string | null {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, ...EXTENSIONS.map((ext) => base + ext), ...EXTENSIONS.map((ext) => path.join(base, `index${ext}`))];
  return candidates.find(isFile) ?? null;
}

/** The repository's import graph (repo-relative paths), and the relative imports that name no file. */
function importGraph(): { edges: Map<string, string[]>; unresolved: string[] } {
  const edges = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of FOLDERS.flatMap((folder) => sourceFiles(path.join(root, folder)))) {
    const from = path.relative(root, file);
    const targets: string[] = [];
    for (const specifier of specifiers(file).filter((s) => s.startsWith('.'))) {
      const target = resolve(file, specifier);
      if (target) targets.push(path.relative(root, target));
      else unresolved.push(`${from}: '${specifier}' names no file`);
    }
    edges.set(from, targets);
  }
  return { edges, unresolved };
}

/** One circle through each strongly connected group of files (Tarjan), as `a → b → a`. */
function cycles(edges: Map<string, string[]>): string[] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (edges.get(node) ?? []).includes(node)) groups.push(group);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups.map((group) => {
    // The shortest way from the group's first file back to itself, inside the group.
    const inGroup = new Set(group);
    const start = group[0];
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !cameFrom.has(start)) {
      const node = queue.shift()!;
      for (const next of edges.get(node) ?? []) {
        if (!inGroup.has(next) || cameFrom.has(next)) continue;
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
    const circle = [start];
    for (let node = cameFrom.get(start)!; node !== start; node = cameFrom.get(node)!) circle.unshift(node);
    return `import cycle: ${[start, ...circle].join(' → ')}`;
  });
}

describe('the import graph', () => {
  it('keeps the layers (engine, native-models), has no cycles, and every relative import names a file', () => {
    const { edges, unresolved } = importGraph();
    const broken = [...edges].flatMap(([from, targets]) =>
      LAYERS.filter((layer) => from.startsWith(layer.from)).flatMap((layer) =>
        targets.filter((target) => !layer.allowed.some((allowed) => target.startsWith(allowed))).map((target) => `${from} imports ${target}: ${layer.rule}`),
      ),
    );
    expect(edges.size).toBeGreaterThan(500);
    expect([...unresolved, ...broken, ...cycles(edges)]).toEqual([]);
  });
});
