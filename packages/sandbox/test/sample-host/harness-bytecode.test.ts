/**
 * The harness's bytecode, compiled on the host into a per-user cache and copied beside the harness of the next shared
 * sample host: that the real interpreter takes it for the harness, refuses it for any other source, and that the
 * samples of the next host import the harness from it after the sandbox that compiled it closed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test, vi } from "vitest";
import { availableLevels, createSandbox } from "@skillrig/sandbox";
import { bytecodeCacheDir, cachedBytecode, compileBytecode } from "../../src/sample-host/harness-bytecode.js";
import { callOnce, removeModules, writeModule } from "./samples.js";

afterAll(removeModules);

const HARNESS = join(dirname(fileURLToPath(import.meta.url)), "../../src/sample-host/sample_harness.py");
const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();

/** Imports sample_harness from `dir` with `python -v` and says which file its code object came from. */
function codeObjectOf(dir: string): string | undefined {
  const r = spawnSync(python, ["-S", "-v", "-c", "import sample_harness"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH },
  });
  expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return /# code object from '?([^'\n]*sample_harness[^'\n]*)'?/.exec(r.stderr)?.[1];
}

describe("the harness's bytecode cache", () => {
  test("is found under $XDG_CACHE_HOME, can be moved with SKILLRIG_BYTECODE_CACHE, and turned off", () => {
    expect(bytecodeCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/skillrig/bytecode");
    expect(bytecodeCacheDir({ SKILLRIG_BYTECODE_CACHE: "/y/bc" })).toBe("/y/bc");
    expect(bytecodeCacheDir({ SKILLRIG_BYTECODE_CACHE: "off" })).toBeUndefined();
  });

  test("is kept by root only: another user's weak-level runs run code as that user, who could rewrite it", () => {
    expect(bytecodeCacheDir({ XDG_CACHE_HOME: "/x" }, 0)).toBe("/x/skillrig/bytecode");
    expect(bytecodeCacheDir({ XDG_CACHE_HOME: "/x" }, 1000)).toBeUndefined();
    expect(bytecodeCacheDir({ SKILLRIG_BYTECODE_CACHE: "/y/bc" }, 1000)).toBeUndefined();
  });

  // A checked-hash pyc checks the source beside it, never its own code: only who can write the cache protects it.
  test.runIf(process.getuid?.() === 0)(
    "an entry someone else could have written (a folder or file open to others, a file not root's) is not used, and an open cache is not compiled into",
    async () => {
      for (const [name, spoil] of [
        ["cache-mode", (cache: string) => chmodSync(cache, 0o777)],
        ["entry-mode", (_cache: string, file: string) => chmodSync(dirname(file), 0o757)],
        ["file-mode", (_cache: string, file: string) => chmodSync(file, 0o646)],
        ["file-owner", (_cache: string, file: string) => chownSync(file, 54321, 54321)],
      ] as const) {
        const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
        await compileBytecode(cache, python, HARNESS);
        const cached = await cachedBytecode(cache, python, HARNESS);
        expect(cached, name).toBeDefined();
        spoil(cache, cached!.file);
        expect(await cachedBytecode(cache, python, HARNESS), name).toBeUndefined();
      }
      const open = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
      chmodSync(open, 0o777);
      await expect(compileBytecode(open, python, HARNESS)).rejects.toThrow(
        /is not private, so it is not used: .* is writable by its group and others \(mode 0777\)/,
      );
      expect(readdirSync(open).flatMap((entry) => readdirSync(join(open, entry)))).toEqual([]);
    },
  );

  test("compiled once, it is what the interpreter runs for the harness; for a changed source it is neither found nor used", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    expect(await cachedBytecode(cache, python, HARNESS)).toBeUndefined();
    await compileBytecode(cache, python, HARNESS);
    const cached = await cachedBytecode(cache, python, HARNESS);
    expect(cached?.name).toMatch(/^sample_harness\.[a-z]+-\d+\.pyc$/);

    // Beside a copy of the harness, as in a runtime's code folder: the code object comes from the cached file.
    const code = mkdtempSync(join(tmpdir(), "skillrig-bytecode-code-"));
    copyFileSync(HARNESS, join(code, "sample_harness.py"));
    mkdirSync(join(code, "__pycache__"));
    copyFileSync(cached!.file, join(code, "__pycache__", cached!.name));
    expect(codeObjectOf(code)).toBe(join(code, "__pycache__", cached!.name));

    // One byte more in the source: another key, and the old bytecode beside it is refused by its hash (PEP 552).
    const changed = join(code, "sample_harness.py");
    writeFileSync(changed, `${readFileSync(HARNESS, "utf8")}\n# changed\n`);
    expect(await cachedBytecode(cache, python, changed)).toBeUndefined();
    expect(codeObjectOf(code)).toBe(changed);
  });

  test("a compile that fails rejects with the interpreter's reason, and leaves nothing in the cache", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    const broken = join(mkdtempSync(join(tmpdir(), "skillrig-bytecode-src-")), "sample_harness.py");
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
    harness = sys.modules.get("sample_harness")
    return [harness is not None, harness is not None and os.path.exists(harness.__cached__)]
`;

describe.runIf(warmHere)("the shared sample host and the bytecode cache (root, level namespaces)", () => {
  test("the first sandbox compiles the harness for the next; the next host's samples import it from that bytecode", async () => {
    const cache = mkdtempSync(join(tmpdir(), "skillrig-bytecode-"));
    vi.stubEnv("SKILLRIG_BYTECODE_CACHE", cache);
    try {
      const module = await writeModule(PROBE);
      const actual: unknown[] = [];
      for (let command = 0; command < 2; command++) {
        const sandbox = createSandbox({ level: "namespaces" });
        try {
          const reply = await callOnce(sandbox, module, "harness_bytecode", []);
          actual.push(reply.end === "returned" ? JSON.parse(reply.valueJson) : reply);
        } finally {
          await sandbox.close?.(); // waits for the compile a miss started
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
