/**
 * The kit as a kind's author uses it: `defineAssertionKind` refuses a definition it cannot run, naming the plugin;
 * `checkAssertion` reports what evals.json loading would (pointers); `gradeAssertion` grades on given outputs with
 * the safe reader (a link is a reason, never followed), and a `sandbox` kind gets the runner's sandbox.
 */
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS, Runner, resolveCaseLimits } from "@skillrig/core";
import sandboxPlugin from "@skillrig/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { defineAssertionKind } from "../src/index.js";
import { checkAssertion, gradeAssertion } from "../src/testing.js";

const lines = defineAssertionKind<{ kind: "line_count"; path: string; lines: number }>({
  name: "@acme/line-count",
  kind: "line_count",
  runsIn: "runner",
  schema: {
    type: "object",
    required: ["path", "lines"],
    properties: { path: { type: "string", minLength: 1 }, lines: { type: "integer", minimum: 0 } },
    additionalProperties: false,
  },
  describe: (a) => `${a.path} has ${a.lines} lines`,
  async grade(a, run) {
    const read = await run.readOutput(a.path);
    if (!read.ok) return { passed: false, evidence: read.reason };
    const count = read.text.split("\n").filter(Boolean).length;
    return { passed: count === a.lines, evidence: `${a.path} has ${count} lines` };
  },
});

describe("@skillrig/assertion-kit", () => {
  it("grades on the outputs given: pass, fail, and a hostile file it will not read", async () => {
    expect(await gradeAssertion(lines, { kind: "line_count", path: "a.txt", lines: 2 }, { outputs: { "a.txt": "1\n2\n" } })).toEqual({
      passed: true,
      evidence: "a.txt has 2 lines",
    });
    expect(await gradeAssertion(lines, { kind: "line_count", path: "a.txt", lines: 3 }, { outputs: { "a.txt": "1\n2\n" } })).toEqual({
      passed: false,
      evidence: "a.txt has 2 lines",
    });
    expect(await gradeAssertion(lines, { kind: "line_count", path: "../etc/passwd", lines: 1 })).toEqual({
      passed: false,
      evidence: "../etc/passwd: the path has a '..' component; it must stay inside outputs/",
    });
  });

  it("never follows a link the agent left in outputs/", async () => {
    const { readOutputFile } = await import("../src/index.js");
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const dir = mkdtempSync(join((await import("node:os")).tmpdir(), "assertion-kit-link-"));
    writeFileSync(join(dir, "real.txt"), "x\n");
    symlinkSync("/etc/hostname", join(dir, "link.txt"));
    expect(await readOutputFile(dir, "link.txt")).toEqual({
      ok: false,
      reason: "link.txt is a symbolic link (to /etc/hostname); links in outputs/ are never followed",
    });
    expect(await readOutputFile(dir, "real.txt")).toEqual({ ok: true, text: "x\n", bytes: 2 });
  });

  it("checks an assertion as evals.json loading does, with pointers; grading refuses an invalid one", async () => {
    expect(
      checkAssertion(lines, { kind: "line_count", path: "", lines: 1.5, text: 3, more: 1 }).map((v) => `${v.pointer} ${v.message}`),
    ).toEqual([
      "/text must be string",
      "/more is not an allowed key",
      "/path must NOT have fewer than 1 characters",
      "/lines must be integer",
    ]);
    expect(checkAssertion(lines, { kind: "other" })).toEqual([{ pointer: "/kind", message: 'is "other", not "line_count"' }]);
    await expect(gradeAssertion(lines, { kind: "line_count", path: "a.txt" })).rejects.toMatchObject({
      code: "invalid_skill",
      pointer: "/lines",
    });
  });

  it("refuses a definition it cannot run, naming the plugin", () => {
    const base = { ...lines.definition, name: "@acme/x", kind: "x" };
    expect(() => defineAssertionKind({ ...base, kind: "Has Space" })).toThrow(
      /plugin "@acme\/x": assertion kind "Has Space" is not a usable name/,
    );
    expect(() => defineAssertionKind({ ...base, runsIn: "elsewhere" as never })).toThrow(/must say runsIn: "runner" or "sandbox"/);
    // Compiled when an assertion is first checked (evals.json's load), not at import: named with its plugin then.
    expect(() => checkAssertion(defineAssertionKind({ ...base, schema: { type: "nope" } }), { kind: "x" })).toThrow(
      /plugin "@acme\/x": the schema of assertion kind "x" does not compile/,
    );
    expect(() =>
      new Runner().use(lines).use(defineAssertionKind({ ...lines.definition, name: "@other/line-count", kind: "line_count" })),
    ).toThrow(/assertion kind "line_count" is claimed by both plugin "@acme\/line-count" and plugin "@other\/line-count"/);
  });

  describe("a sandbox kind", () => {
    const runner = new Runner().use(sandboxPlugin());
    afterAll(() => runner.close());
    const exits = defineAssertionKind<{ kind: "exits_zero"; command: string }>({
      name: "@acme/exits-zero",
      kind: "exits_zero",
      runsIn: "sandbox",
      schema: { type: "object", required: ["command"], properties: { command: { type: "string" } } },
      describe: (a) => a.command,
      async grade(a, run) {
        const limits = { ...resolveCaseLimits({ limits: { timeout_ms: 60_000 } }), outputBytes: DEFAULT_LIMITS.outputBytes };
        const result = await run.sandbox!.run({ command: ["/bin/sh", "-c", a.command], cwd: run.outputsDir, limits });
        return { passed: result.exitCode === 0, evidence: `exit ${result.exitCode}: ${result.stdout.trim()}` };
      },
    });

    it("runs its command through the runner's sandbox, in the outputs given", async () => {
      expect(await gradeAssertion(exits, { kind: "exits_zero", command: "cat a.txt" }, { runner, outputs: { "a.txt": "hi" } })).toEqual({
        passed: true,
        evidence: "exit 0: hi",
      });
    });
  });
});
