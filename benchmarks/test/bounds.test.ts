/**
 * The bench's own measuring tools, run for real: the start-up phase profile (`node --cpu-prof`, split by stack) and
 * the forked-case floor (fork_main.py). No figure is asserted, only what each tool attributes and checks.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forkMainPerCaseMs } from "../src/baselines.js";
import { commandPhases } from "../src/cpu-profile.js";
import { resolvePython } from "../src/python.js";
import type { ProcessWorkload } from "../src/workloads.js";

const work = mkdtempSync(join(tmpdir(), "bench-bounds-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("commandPhases", () => {
  it("charges loading to modules, a dependency's work to its package and a child process to waiting", async () => {
    const dir = join(work, "profiled");
    mkdirSync(join(dir, "node_modules", "busy-dep"), { recursive: true });
    // Busy by the wall clock, so a loaded machine still gives the dependency hundreds of ms of samples.
    writeFileSync(
      join(dir, "node_modules", "busy-dep", "index.mjs"),
      "export function burn(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x++; return x; }\n",
    );
    writeFileSync(
      join(dir, "main.mjs"),
      [
        'import { execFile } from "node:child_process";',
        'import { burn } from "./node_modules/busy-dep/index.mjs";',
        "await new Promise((resolve) => setTimeout(resolve, 0));",
        "burn(400);",
        'await new Promise((resolve, reject) => execFile("sleep", ["0.6"], (error) => (error ? reject(error) : resolve())));',
        'process.stdout.write("done\\n");',
      ].join("\n"),
    );
    const phases = await commandPhases([join(dir, "main.mjs")], { cwd: dir, workDir: work });
    expect(phases.stdout).toBe("done\n");
    const byPackage = new Map(phases.jsByPackage);
    expect(byPackage.get("busy-dep")).toBeGreaterThan(200);
    expect(phases.waitingMs).toBeGreaterThan(300);
    expect(phases.modulesMs).toBeGreaterThan(0);
    // Every phase is a share of the same process: together they cannot exceed its wall time.
    const js = phases.jsByPackage.reduce((sum, [, ms]) => sum + ms, 0);
    expect(phases.nodeStartMs + phases.modulesMs + phases.waitingMs + phases.nativeMs + js).toBeLessThanOrEqual(phases.wallMs + 1);
  });

  it("refuses a command that fails, naming its exit code", async () => {
    const script = join(work, "fails.mjs");
    writeFileSync(script, 'process.stderr.write("broken on purpose\\n"); process.exit(3);\n');
    await expect(commandPhases([script], { cwd: work, workDir: work })).rejects.toThrow(/exited 3: broken on purpose/);
  });
});

describe("forkMainPerCaseMs (the forked-case floor)", () => {
  const python = resolvePython().executable;
  const workload = (name: string, source: string, args: string[], stdin: string, expected: string): ProcessWorkload => {
    const deliverableDir = join(work, name);
    mkdirSync(deliverableDir, { recursive: true });
    writeFileSync(join(deliverableDir, "main.py"), source);
    return {
      label: name,
      kind: "cli",
      taskFile: "",
      deliverableDir,
      bareArgs: ["main.py", ...args],
      bareStdin: stdin,
      expectedStdout: expected,
      cases: 5,
    };
  };

  it("runs the file as __main__ with argv and stdin, each case in a fresh folder", async () => {
    // Passes only if every case starts in a folder without the previous case's marker, as __main__, with its input.
    const source = [
      "import os, sys",
      'fresh = not os.path.exists("marker")',
      'open("marker", "w").close()',
      'print(__name__, sys.argv[1:], sys.stdin.read().strip(), "fresh" if fresh else "reused")',
    ].join("\n");
    const ms = await forkMainPerCaseMs(
      python,
      workload("fresh", source, ["--name", "x"], "piped\n", "__main__ ['--name', 'x'] piped fresh\n"),
      5,
    );
    expect(ms).toBeGreaterThan(0);
  });

  it("fails when a case's stdout is not the expected one, so a broken floor cannot look fast", async () => {
    await expect(forkMainPerCaseMs(python, workload("wrong", 'print("ok")\n', [], "", "not ok\n"), 3)).rejects.toThrow(/"passed": 0/);
  });
});
