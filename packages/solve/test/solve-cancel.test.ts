/** Canceling a batch stops the running attempt and starts no other; the report says which ran and which did not. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runner, type SkillrigPlugin } from "@skillrig/core";
import deliverableFunction from "@skillrig/deliverable-function";
import { compareModesPlugin } from "@skillrig/oracle";
import sandboxPlugin from "@skillrig/sandbox";
import { skillProtocolPlugin } from "@skillrig/skills";
import { loadSolveTasks, solve } from "@skillrig/solve";
// @ts-expect-error: a plain JavaScript plugin module, as a user would write one
import scriptedEngine from "./fixtures/scripted-engine.mjs";

const example = resolve(fileURLToPath(new URL("../../../examples/solve-run-length", import.meta.url)));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "solve-cancel-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function scriptedRunner(): Runner {
  return new Runner({ cwd: dir })
    .use(scriptedEngine() as SkillrigPlugin)
    .use(compareModesPlugin())
    .use(deliverableFunction())
    .use(skillProtocolPlugin())
    .use(sandboxPlugin());
}

describe("canceling a solve batch", () => {
  it("ends an attempt whose job ran out of time as engine_failed, not canceled", async () => {
    const report = await solve(scriptedRunner(), {
      tasks: await loadSolveTasks([join(example, "task.json")], dir),
      engines: [{ name: "scripted", options: { wait_for_abort: true } }],
      runsDir: join(dir, "runs"),
      timeoutMs: 300,
    });
    expect(report.tasks[0]!.attempts[0]).toMatchObject({ status: "engine_failed" });
  }, 30_000);

  it("ends the running attempt as canceled and does not start the rest", async () => {
    const runner = scriptedRunner();
    const controller = new AbortController();
    runner.hooks.job.event.tap("test", (event) => {
      if (event.type === "message") controller.abort();
    });
    const report = await solve(runner, {
      tasks: await loadSolveTasks([join(example, "task.json")], dir),
      engines: [{ name: "scripted", options: { wait_for_abort: true } }],
      attempts: 3,
      jobs: 1,
      runsDir: join(dir, "runs"),
      signal: controller.signal,
    });
    const attempts = report.tasks[0]!.attempts;
    expect(attempts.map((a) => a.status)).toEqual(["canceled", "canceled", "canceled"]);
    expect(attempts[0]!.job?.status).toBe("canceled");
    expect(attempts[0]!.message).toContain("canceled");
    expect(attempts.slice(1).map((a) => a.message)).toEqual([
      "not run: the batch was canceled before this attempt started",
      "not run: the batch was canceled before this attempt started",
    ]);
    expect(report.summary).toEqual({ tasks: 1, attempts: 3, passed: 0, not_passed: 3 });
  }, 30_000);
});
