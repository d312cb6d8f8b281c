/**
 * The harness's bytecode, compiled on the host into a per-user cache and copied beside the harness of the next warm
 * runtime: that the real interpreter takes it for the harness, refuses it for any other source, and that a warm
 * runtime's pairs import the harness from it on the command after the one that compiled it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test, vi } from "vitest";
import { Runner, type LoadedTask } from "@skillrig/core";
import { compareModesPlugin, runSuite } from "@skillrig/oracle";
import sandboxPlugin, { availableLevels } from "@skillrig/sandbox";
import deliverableFunction from "@skillrig/deliverable-function";
import { bytecodeCacheDir, cachedBytecode, compileBytecode } from "../src/harness-bytecode.js";
import { removeModules, writeModule } from "./drive.js";

afterAll(removeModules);

const HARNESS = join(dirname(fileURLToPath(import.meta.url)), "../src/function_harness.py");
const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** Imports function_harness from `dir` with `python -v` and says which file its code object came from. */
function codeObjectOf(dir: string): string | undefined {
  const r = spawnSync(python, ["-S", "-v", "-c", "import function_harness"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH },
  });
  expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return /# code object from '?([^'\n]*function_harness[^'\n]*)'?/.exec(r.stderr)?.[1];
}

describe("the harness's bytecode cache", () => {
  test("is found under $XDG_CACHE_HOME, can be moved with SKILLRIG_BYTECODE_CACHE, and turned off", () => {
    expect(bytecodeCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/skillrig/bytecode");
    expect(bytecodeCacheDir({ SKILLRIG_BYTECODE_CACHE: "/y/bc" })).toBe("/y/bc");
    expect(bytecodeCacheDir({ SKILLRIG_BYTECODE_CACHE: "off" })).toBeUndefined();
  });

  test("compiled once, it is what the interpreter runs for the harness; for a changed source it is neither found nor used", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    expect(await cachedBytecode(cache, python, HARNESS)).toBeUndefined();
    await compileBytecode(cache, python, HARNESS);
    const cached = await cachedBytecode(cache, python, HARNESS);
    expect(cached?.name).toMatch(/^function_harness\.[a-z]+-\d+\.pyc$/);

    // Beside a copy of the harness, as in a runtime's code folder: the code object comes from the cached file.
    const code = mkdtempSync(join(tmpdir(), "skillrig-bytecode-code-"));
    copyFileSync(HARNESS, join(code, "function_harness.py"));
    mkdirSync(join(code, "__pycache__"));
    copyFileSync(cached!.file, join(code, "__pycache__", cached!.name));
    expect(codeObjectOf(code)).toBe(join(code, "__pycache__", cached!.name));

    // One byte more in the source: another key, and the old bytecode beside it is refused by its hash (PEP 552).
    const changed = join(code, "function_harness.py");
    writeFileSync(changed, `${readFileSync(HARNESS, "utf8")}\n# changed\n`);
    expect(await cachedBytecode(cache, python, changed)).toBeUndefined();
    expect(codeObjectOf(code)).toBe(changed);
  });

  test("a compile that fails rejects with the interpreter's reason, and leaves nothing in the cache", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    const broken = join(mkdtempSync(join(tmpdir(), "skillrig-bytecode-src-")), "function_harness.py");
    writeFileSync(broken, "def f(:\n");
    await expect(compileBytecode(cache, python, broken)).rejects.toThrow(/failed \(exit 1\): .*SyntaxError/s);
    expect(await cachedBytecode(cache, python, broken)).toBeUndefined();
    const notAFolder = join(cache, "a-file");
    writeFileSync(notAFolder, "");
    await expect(compileBytecode(notAFolder, python, HARNESS)).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});

const warmHere = process.getuid?.() === 0 && availableLevels().some((l) => l.level === "namespaces" && l.available);

// The sample reads what its own process imported: the harness module, and whether its bytecode file exists.
const PROBE = `import os, sys

def harness_bytecode():
    harness = sys.modules.get("function_harness")
    return [harness is not None, harness is not None and os.path.exists(harness.__cached__)]
`;

const probeTask: LoadedTask = {
  displayPath: "bytecode.task.json",
  task: {
    contract_version: "1.0",
    task_id: "bytecode",
    deliverable_type: "function",
    entrypoint: "harness_bytecode",
    tests: [{ name: "probe", input: [], expected: [true, true] }],
  },
};

describe.runIf(warmHere)("a warm runtime and the bytecode cache (root, level namespaces)", () => {
  test("the first runner compiles the harness for the next; the next runtime's pairs import it from that bytecode", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    vi.stubEnv("SKILLRIG_BYTECODE_CACHE", cache);
    try {
      const deliverable = await writeModule(PROBE);
      const actual: unknown[] = [];
      for (let command = 0; command < 2; command++) {
        const runner = new Runner()
          .use(compareModesPlugin())
          .use(deliverableFunction())
          .use(sandboxPlugin({ level: "namespaces" }));
        try {
          const report = await runSuite(runner, {
            entries: [{ loaded: probeTask, samples: [{ index: 0, source: "probe", deliverable }] }],
          });
          actual.push(report.tasks[0]?.samples[0]?.report?.cases[0]?.actual);
        } finally {
          await runner.close(); // waits for the compile a miss started
        }
        if (command === 0) expect(readdirSync(cache)).toHaveLength(1);
      }
      expect(actual).toEqual([
        [true, false],
        [true, true],
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
  }, 120_000);
});
