/**
 * The jobs server asks the skills package's `checkJobRequest` at POST /v1/jobs, the same rules runJob applies
 * later, so a job that cannot run is refused at once (4xx naming the skill, the field and why) instead of queued
 * to fail. And `skillrig serve` writes its run folders where $SKILLRIG_RUNS_DIR says (core's runsFolderOf).
 * Real HTTP on loopback, real SQLite, the echo engine.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { api, FIXTURES, makeProject, startInProcess, waitForStatus, type Api } from "./support/server-harness.js";

/** A copy of quick-echo that only runs interactively: nobody would answer its questions in a job. */
function interactiveOnlySkill(roots: string): void {
  const dir = join(roots, "ask-first");
  cpSync(join(FIXTURES, "skills", "quick-echo"), dir, { recursive: true });
  const runnerFile = join(dir, "assets", "runner.json");
  const runner = JSON.parse(readFileSync(runnerFile, "utf8"));
  writeFileSync(runnerFile, JSON.stringify({ ...runner, id: "ask-first", execution_modes: ["interactive"] }));
  const skillMd = join(dir, "SKILL.md");
  writeFileSync(skillMd, readFileSync(skillMd, "utf8").replace(/^name: .*$/m, "name: ask-first"));
}

describe("POST /v1/jobs checks the request with the skills package's rules", () => {
  let server: RunningServer;
  let client: Api;
  let runsDir: string;
  const before = process.env.SKILLRIG_RUNS_DIR;

  beforeAll(async () => {
    const roots = mkdtempSync(join(tmpdir(), "skillrig-request-roots-"));
    interactiveOnlySkill(roots);
    runsDir = join(mkdtempSync(join(tmpdir(), "skillrig-env-runs-")), "runs");
    process.env.SKILLRIG_RUNS_DIR = runsDir;
    server = await startInProcess(makeProject({}, { skills: { roots: [roots, join(FIXTURES, "skills")] } }));
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
    if (before === undefined) Reflect.deleteProperty(process.env, "SKILLRIG_RUNS_DIR");
    else process.env.SKILLRIG_RUNS_DIR = before;
  });

  it("refuses an interactive-only skill at POST with 422 naming the skill and why; nothing is queued", async () => {
    const listed = async () => ((await client.json("GET", "/v1/jobs?limit=200")).body.jobs as unknown[]).length;
    const jobsBefore = await listed();
    const res = await client.json("POST", "/v1/jobs", { skill_id: "ask-first", engine: "echo", input: { message: "hi" } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error).toMatchObject({ code: "skill_interactive_only", pointer: "/execution_modes", field: "execution_modes" });
    expect(res.body.error.message).toContain('skill "ask-first" needs interactive answers');
    expect(res.body.error.message).toContain("unattended");
    expect(res.body.error.hint).toContain('add "auto" to execution_modes');
    expect(res.body.error.stack).toBeUndefined();
    expect(await listed()).toBe(jobsBefore);
  });

  it("a hostile request that breaks several rules hears of the request's own faults first, every one listed", async () => {
    const res = await client.json("POST", "/v1/jobs", {
      skill_id: "ask-first",
      engine: "echo",
      input: { message: 42 },
      options: { engine: { binary: "/bin/sh" } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("schema_violation");
    const pointers = res.body.error.violations.map((v: { pointer: string }) => v.pointer).sort();
    expect(pointers).toEqual(["/input/message", "/options/engine/binary"]);
  });

  it("runs a job the rules accept, in the run folder $SKILLRIG_RUNS_DIR names", async () => {
    const created = await client.json("POST", "/v1/jobs", { skill_id: "quick-echo", engine: "echo", input: { message: "hi" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const done = await waitForStatus(client, created.body.id, ["succeeded", "failed"], 120_000);
    expect(done.status, JSON.stringify(done.error)).toBe("succeeded");
    expect(existsSync(join(runsDir, created.body.id, "result.json"))).toBe(true);
    expect(existsSync(join(server.settings.dataDir, "runs", created.body.id))).toBe(false);
  });
});
