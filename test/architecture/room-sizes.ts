// Measures the rooms of src/: every function's length in lines (closures included: a function's span
// from its first to its last line), every file's length, every folder's file count. Used by the
// guard test beside it and by `node --import tsx test/architecture/room-sizes.ts` to print the largest.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface FunctionSize {
  readonly file: string;
  readonly name: string;
  readonly line: number;
  readonly lines: number;
}

export interface RoomSizes {
  readonly functions: readonly FunctionSize[];
  readonly files: readonly { readonly file: string; readonly lines: number }[];
  readonly folders: readonly { readonly folder: string; readonly files: number }[];
}

function sourceFiles(dir: string, out: string[], folders: { folder: string; files: number }[], root: string): void {
  let files = 0;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourceFiles(path, out, folders, root);
    else {
      files += 1;
      if (/\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
    }
  }
  folders.push({ folder: relative(root, dir) || '.', files });
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return '(anonymous)';
}

export function measureRooms(srcDir: string): RoomSizes {
  const paths: string[] = [];
  const folders: { folder: string; files: number }[] = [];
  sourceFiles(srcDir, paths, folders, srcDir);
  const functions: FunctionSize[] = [];
  const files: { file: string; lines: number }[] = [];
  for (const path of paths) {
    const text = readFileSync(path, 'utf8');
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const file = relative(srcDir, path);
    files.push({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        functions.push({ file, name: functionName(node, source), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const byLength = <T extends { lines: number }>(a: T, b: T): number => b.lines - a.lines;
  return {
    functions: functions.sort(byLength),
    files: files.sort(byLength),
    folders: folders.sort((a, b) => b.files - a.files),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rooms = measureRooms(join(process.cwd(), 'src'));
  const top = Number(process.argv[2] ?? 12);
  for (const f of rooms.functions.slice(0, top)) console.log(`${f.lines}\t${f.name}\t${f.file}:${f.line}`);
  console.log('--');
  for (const f of rooms.files.slice(0, top)) console.log(`${f.lines}\t${f.file}`);
  console.log('--');
  for (const f of rooms.folders.slice(0, 5)) console.log(`${f.files}\t${f.folder}`);
}
