import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { skillrig as run } from "./cli-process.js";
import { runCommand } from "./processes.js";

const bin = resolve(__dirname, "../dist/bin.js");

const skillrig = (args: string[], cwd = mkdtempSync(join(tmpdir(), "skillrig-cli-"))) => run(args, cwd);

describe("skillrig CLI", () => {
  it("--help lists every subcommand and the exit codes", async () => {
    const r = await skillrig(["--help"]);
    expect(r.code).toBe(0);
    for (const sub of ["test", "run", "solve", "serve", "skills", "plugins"]) expect(r.stdout).toMatch(new RegExp(`^  ${sub}\\b`, "m"));
    expect(r.stdout).toContain("2  invalid input, config or usage");
  });

  it("every subcommand has its own --help", async () => {
    for (const sub of ["test", "run", "solve", "serve", "skills", "plugins"]) {
      const r = await skillrig([sub, "--help"]);
      expect(r.code, sub).toBe(0);
      expect(r.stdout, sub).toContain(`Usage: skillrig ${sub}`);
    }
  });

  it("a reader that closes the pipe early gets no stack trace, and the command keeps its exit code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-cli-"));
    writeFileSync(
      join(dir, "task.json"),
      JSON.stringify({
        contract_version: "1.0",
        task_id: "piped",
        deliverable_type: "function",
        entrypoint: "f",
        tests: [{ name: "one", input: [1], expected: 2 }],
      }),
    );
    writeFileSync(join(dir, "solution.py"), "def f(x):\n    return x + 1\n");
    // `true` exits without reading: by the time the report is written, nothing is left to read it (EPIPE).
    for (const [args, code] of [
      ["test task.json --deliverable solution.py --json", 0],
      ["test task.json --deliverable solution.py", 0],
      ["plugins", 0],
      ["frobnicate", 2],
    ] as const) {
      const r = await runCommand("bash", ["-c", `"${process.execPath}" "${bin}" ${args} | true; exit "\${PIPESTATUS[0]}"`], dir);
      expect(r.stderr, args).not.toMatch(/EPIPE|node:events|at .*\.js:\d+/);
      expect(r.code, args).toBe(code);
    }
  });

  it("run: a budget flag that is not a positive number is a usage error naming the flag, before any job", async () => {
    const hello = resolve(__dirname, "../../../examples/hello-skill");
    for (const [flag, value, message] of [
      ["--max-tokens", "1.5", "--max-tokens 1.5: expected a positive whole number"],
      ["--max-tokens", "0", "--max-tokens 0: expected a positive whole number"],
      ["--max-cost-usd", "-3", "--max-cost-usd -3: expected a positive number"],
    ] as const) {
      const r = await skillrig(["run", "word-stats", "--engine", "gemini", flag, value, "--no-record"], hello);
      expect(r.code, `${flag} ${value}`).toBe(2);
      expect(r.stderr, `${flag} ${value}`).toContain(`error[usage]: ${message}`);
    }
  });

  it("--version prints the package version", async () => {
    const r = await skillrig(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 on an unknown command or option", async () => {
    expect((await skillrig(["frobnicate"])).code).toBe(2);
    const r = await skillrig(["plugins", "--no-such-flag"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--no-such-flag'");
  });

  it("exits 2 naming the package when the config names a plugin that is not installed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-cli-"));
    writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: ["@acme/skillrig-engine-missing"] }));
    const r = await skillrig(["plugins"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('plugin package "@acme/skillrig-engine-missing"');
    expect(r.stderr).toContain("hint: install it: npm i -D @acme/skillrig-engine-missing"); // no lockfile: npm, as the README
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("--json puts the error, and only the error, on stdout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-cli-"));
    writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ oracle: { jobs: 0 } }));
    const r = await skillrig(["plugins", "--json"], dir);
    expect(r.code).toBe(2);
    const body = JSON.parse(r.stdout);
    expect(body.error.code).toBe("invalid_config");
    expect(body.error.field).toBe("oracle.jobs");
  });

  it("--config names the file to use", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-cli-"));
    writeFileSync(join(dir, "mine.json"), JSON.stringify({ builtins: false }));
    const r = await skillrig(["--config", "mine.json", "plugins", "--json"], dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ config: join(dir, "mine.json"), plugins: [] });
  });
});
