/**
 * No function in packages/*\/src or plugins/*\/src runs over MAX_LINES lines: a long flow reads as a short
 * orchestrator of named steps (as core's job path does). Every function is found with the TypeScript compiler's own
 * parser (declarations, methods, arrows, function expressions, nested ones too), and one over the bound fails the
 * test with its file, line and length.
 * (Issue 45 split the last seventeen; there is no list of exceptions.)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const REPO = join(import.meta.dirname, "..", "..", "..");
const MAX_LINES = 120;

interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry) && !entry.endsWith(".d.ts") ? [path] : [];
  });
}

function srcFolders(): string[] {
  return ["packages", "plugins"].flatMap((top) =>
    readdirSync(join(REPO, top))
      .map((name) => join(REPO, top, name, "src"))
      .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory()),
  );
}

/** The function's own name, else what holds it: a variable, a property, or the call it is passed to. */
function ownName(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(file);
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression;
    const called = ts.isPropertyAccessExpression(callee) ? callee.name.getText(file) : callee.getText(file);
    return `${called} callback`;
  }
  return "(anonymous)";
}

/** Every function of `path` over MAX_LINES, named with the functions and classes around it (`outer > inner`). */
function longFunctionsOf(path: string): LongFunction[] {
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node, outer: string[]): void => {
    let names = outer;
    if (ts.isClassLike(node) && node.name) names = [...outer, node.name.getText(file)];
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      names = [...outer, ownName(fn, file)];
      const line = file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1;
      const lines = file.getLineAndCharacterOfPosition(fn.end).line + 2 - line;
      if (lines > MAX_LINES) found.push({ file: relative(REPO, path), name: names.join(" > "), line, lines });
    }
    ts.forEachChild(node, (child) => visit(child, names));
  };
  visit(file, []);
  return found;
}

function longFunctions(): LongFunction[] {
  return srcFolders().flatMap((src) => sourceFiles(src).flatMap(longFunctionsOf));
}

const describeOne = (f: LongFunction) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

describe(`functions in packages/*/src and plugins/*/src are at most ${MAX_LINES} lines`, () => {
  const found = longFunctions();

  it("none is over the bound", () => {
    expect(found.map(describeOne), `over ${MAX_LINES} lines: split each into named steps`).toEqual([]);
  });

  it("finds functions of every form, nested ones named with their parents", () => {
    const dir = join(REPO, "packages/release-check/test/fixtures/function-length");
    const names = longFunctionsOf(join(dir, "shapes.ts")).map((f) => [f.name, f.line, f.lines]);
    expect(names).toEqual([
      ["declared", 1, 122],
      ["outer", 124, 126],
      ["outer > arrow", 125, 123],
      ["outer > arrow > on callback", 126, 121],
      ["Holder > method", 256, 123],
    ]);
  });
});
