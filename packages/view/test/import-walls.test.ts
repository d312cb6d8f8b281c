/**
 * The walls inside packages/view: no circle of imports (server side and web app), and the web app's UI kit
 * (web/src/kit) imports no page. The graph is walked here, with TypeScript's own import scanner
 * (`ts.preProcessFile`: every import, export-from and dynamic import of a file, type-only ones included), rather
 * than with madge or dependency-cruiser: the package has ~40 modules and relative imports only, and the walk is
 * 60 lines with no new dependency.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOTS = ["src", "web/src"].map((r) => join(PACKAGE, r));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Each module's relative imports, resolved to the files they name (`./x.js` is `x.ts` or `x.tsx`). */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      // Stylesheets are assets of the build, not modules.
      .filter((name) => name.startsWith(".") && !name.endsWith(".css"))
      .map((name) => {
        const base = resolve(dirname(file), name).replace(/\.js$/, "");
        const found = [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((c) => known.has(c));
        if (!found) throw new Error(`${relative(PACKAGE, file)} imports ${name}, which names no module of the package`);
        return found;
      });
    graph.set(file, targets);
  }
  return graph;
}

/** Every circle of the graph, each once, as the list of its modules (depth-first search, colouring the path). */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) return void found.push([...path.slice(at), file].map((f) => relative(PACKAGE, f)));
    if (done.has(file)) return;
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

const graph = importGraph(ROOTS.flatMap(sourceFiles));

describe("packages/view's import graph", () => {
  it("has no circle", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("finds a circle when there is one (the walk itself is checked)", () => {
    const a = join(PACKAGE, "a.ts");
    const b = join(PACKAGE, "b.ts");
    const c = join(PACKAGE, "c.ts");
    const looped = new Map([
      [a, [b]],
      [b, [c]],
      [c, [a]],
    ]);
    expect(circles(looped)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("keeps the web app's kit free of pages: web/src/kit imports only the kit and the data layer", () => {
    const kit = join(PACKAGE, "web/src/kit");
    const allowed = (target: string) =>
      target.startsWith(`${kit}/`) ||
      [join(PACKAGE, "web/src/api.ts"), join(PACKAGE, "web/src/bundle.ts")].includes(target) ||
      target.startsWith(join(PACKAGE, "src"));
    const breaches = [...graph.entries()]
      .filter(([file]) => file.startsWith(`${kit}/`))
      .flatMap(([file, targets]) => targets.filter((t) => !allowed(t)).map((t) => `${relative(PACKAGE, file)} -> ${relative(PACKAGE, t)}`));
    expect(breaches).toEqual([]);
    expect([...graph.keys()].filter((f) => f.startsWith(`${kit}/`)).length).toBeGreaterThan(5);
  });

  it("takes the eval files' types and schemas from @skillrig/evals/format, declaring none of them again", () => {
    const evalTypes = [
      "Benchmark",
      "TriggerReport",
      "IterationRecord",
      "Grading",
      "RunAnswer",
      "RunSummary",
      "ConfigurationSummary",
      "Timing",
    ];
    const evalSchemas = ["ANSWER", "BENCHMARK", "GRADING", "ITERATION", "TIMING", "TRIGGERS"].map((s) => `${s}_SCHEMA`);
    const redeclared = [...graph.keys()].flatMap((file) => {
      const text = readFileSync(file, "utf8");
      const types = evalTypes.filter((t) => new RegExp(`^(export )?(interface|type) ${t}\\b`, "m").test(text));
      const schemas = evalSchemas.filter((name) => new RegExp(`^(export )?const ${name}\\b`, "m").test(text));
      return [...types, ...schemas].map((t) => `${relative(PACKAGE, file)}: ${t}`);
    });
    expect(redeclared).toEqual([]);
  });
});
