import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { bundledFileDir, bundledFileUrl } from "../src/bundled-file-url.js";
import { writeTree } from "./cli-process.js";
import { runNode } from "./processes.js";

const bin = resolve(__dirname, "../dist/bin.js");
const REPO = resolve(__dirname, "../../..");

describe("the bin's bundle (dist/bundle/, scripts/bundle.mjs)", () => {
  const dir = writeTree({
    // Lists every module the loader loads (ESM hook), so the test sees which files a command really reads.
    "hooks.mjs": `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + "\\n");
  return next(url, context);
}`,
    "register.mjs": `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n`,
    "one-case/task.json": JSON.stringify({
      contract_version: "1.0",
      task_id: "one-case",
      deliverable_type: "function",
      entrypoint: "f",
      tests: [{ name: "one", input: [1], expected: 2 }],
    }),
    "one-case/solution.py": "def f(x):\n    return x + 1\n",
    "script-case/task.json": JSON.stringify({
      contract_version: "1.0",
      task_id: "script-case",
      deliverable_type: "script",
      entrypoint: "main.py",
      tests: [{ name: "echo", input: { stdin: "hi" }, expected: { stdout: "hi" } }],
    }),
    "script-case/main.py": "import sys\nsys.stdout.write(sys.stdin.read())\n",
  });

  async function loadedBy(args: string[]): Promise<{ status: number | null; loaded: string[]; stdout: string }> {
    const log = join(dir, `${args.join("_").replace(/\W/g, "")}.log`);
    writeFileSync(log, "");
    const r = await runNode(["--import", join(dir, "register.mjs"), bin, ...args], dir, { LOADED_LOG: log });
    return { status: r.code, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean), stdout: r.stdout };
  }

  it("a command runs from its bundled entry, and no file of a bundled package or of the CLI's own modules is read", async () => {
    for (const task of ["one-case", "script-case"]) {
      const deliverable = task === "one-case" ? "one-case/solution.py" : "script-case/main.py";
      const { status, loaded, stdout } = await loadedBy(["test", `${task}/task.json`, "--deliverable", deliverable, "--json"]);
      expect(status, stdout).toBe(0);
      expect(loaded.some((url) => url.endsWith("/cli/dist/bundle/commands/test.js"))).toBe(true);
      // The CLI's own modules come from the bundle; bin.js and the generated config validator stay files.
      expect(
        loaded.filter((url) => /\/cli\/dist\/(?!bundle\/)/.test(url) && !/\/cli\/dist\/(bin|config\.validate)\.js$/.test(url)),
      ).toEqual([]);
      expect(
        loaded.filter((url) => /\/packages\/(evals|view|stats)\/dist\/|\/plugins\/deliverable-(script|cli)\/dist\//.test(url)),
      ).toEqual([]);
      // Packages a plugin from the project may import are still loaded as their own files: the plugin meets the same copy.
      expect(loaded.some((url) => url.includes("/packages/core/dist/"))).toBe(true);
      expect(loaded.some((url) => url.includes("/packages/sandbox/dist/"))).toBe(true);
    }
  });

  it("a bundled module finds its files where its package ships them, not beside the bundle's chunks", async () => {
    const judge = realpathSync(join(REPO, "packages/evals/dist/grading/judge.js"));
    expect(bundledFileUrl("@skillrig/evals", "dist/grading/judge.js")).toBe(pathToFileURL(judge).href);
    expect(bundledFileDir("@skillrig/cli", "dist/commands/init.js")).toBe(realpathSync(join(REPO, "packages/cli/dist/commands")));
    // No bundled module is left reading the bundle chunk's own location: every import.meta was relocated.
    const bundleText = readFileSync(join(REPO, "packages/cli/dist/bundle/commands/init.js"), "utf8");
    expect(bundleText).not.toMatch(/import\.meta\.(url|dirname)/);
  });

  it("`skillrig init` in the bundle still writes its templates", async () => {
    const target = join(dir, "project");
    const r = await runNode([bin, "init", target], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(target, "tasks/add-numbers/solution.py"), "utf8")).toContain("def add");
  });
});
