/**
 * A plain Agent Skill (SKILL.md, no assets/runner.json) through the jobs server: the catalog says its kind,
 * POST /v1/jobs takes its `prompt` and `options.skill_install`, the real gemini CLI runs it in the agent jail
 * against the mock model, and the result's output is the agent's final answer text. Bad requests get 4xx naming
 * the field, before anything is queued.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "@skillrig/server";
import { api, ECHO_ENGINE, FIXTURES, makeProject, startInProcess, waitForStatus, type Api } from "./support/server-harness.js";

const pluginPath = (name: string) => join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", name, "dist", "index.js");
const SKILL = "plain-notes";

describe("a plain Agent Skill behind the server", () => {
  let server: RunningServer;
  let client: Api;
  let project: string;

  beforeAll(async () => {
    const roots = mkdtempSync(join(tmpdir(), "skillrig-plain-roots-"));
    mkdirSync(join(roots, SKILL, "evals"), { recursive: true });
    writeFileSync(
      join(roots, SKILL, "SKILL.md"),
      `---\nname: ${SKILL}\ndescription: Answers questions about notes.\n---\n\nAnswer briefly.\n`,
    );
    writeFileSync(join(roots, SKILL, "evals", "evals.json"), '{"skill_name": "plain-notes", "evals": []}');
    // The model's answer depends on the prompt it got: the plain skill's prompt reaches the model as given.
    const scenario = {
      turns: [{ text: "no prompt seen" }],
      branches: [{ prompt_contains: "How many notes?", turns: [{ text: "Seven notes." }] }],
    };
    project = makeProject(
      {},
      {
        plugins: [ECHO_ENGINE, [pluginPath("@skillrig/engine-gemini"), { mock_scenario: scenario }]],
        skills: { roots: [roots, join(FIXTURES, "skills")] },
      },
    );
    server = await startInProcess(project);
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lists the skill as plain and runs its prompt on the jailed engine; the output is the answer text", async () => {
    const listed = (await client.json("GET", "/v1/skills")).body.skills;
    // A plain skill runs on any engine: it lists every engine this server has a plugin for.
    expect(listed).toContainEqual(expect.objectContaining({ id: SKILL, kind: "plain", engines: ["echo", "gemini"] }));
    expect(listed).toContainEqual(expect.objectContaining({ id: "word-count", kind: "runner", engines: ["echo", "gemini"] }));

    const created = await client.json("POST", "/v1/jobs", {
      skill_id: SKILL,
      engine: "gemini",
      prompt: "How many notes?",
      options: { skill_install: "discoverable", timeout_ms: 120_000 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const job = await waitForStatus(client, created.body.id, ["succeeded", "failed", "canceled"], 180_000);
    const result = (await client.json("GET", `/v1/jobs/${created.body.id}/result`)).body;
    expect(job.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toBe("Seven notes.");
    expect(result.engine_confinement).toMatchObject({ isolation: "namespaces" });
    // discoverable: installed without evals/, unnamed in the context file.
    const runs = join(project, "data", "runs");
    const runDir = join(runs, readdirSync(runs).find((d) => existsSync(join(runs, d, "result.json")))!);
    expect(readdirSync(join(runDir, "workspace", ".agents", "skills", SKILL))).toEqual(["SKILL.md"]);
    expect(readFileSync(join(runDir, "workspace", "GEMINI.md"), "utf8")).not.toContain(SKILL);
  });

  it("answers a request that does not fit the skill's kind with 4xx naming the field, and queues nothing", async () => {
    const before = (await client.json("GET", "/v1/jobs")).body.jobs.length;
    const missing = await client.json("POST", "/v1/jobs", { skill_id: SKILL, engine: "gemini" });
    expect(missing.status).toBe(422);
    expect(missing.body.error.violations).toContainEqual(expect.objectContaining({ pointer: "/prompt", field: "prompt" }));

    const withInput = await client.json("POST", "/v1/jobs", { skill_id: SKILL, engine: "gemini", prompt: "x", input: { a: 1 } });
    expect(withInput.status).toBe(422);
    expect(withInput.body.error.violations).toContainEqual(expect.objectContaining({ pointer: "/input" }));

    const promptForRunner = await client.json("POST", "/v1/jobs", {
      skill_id: "word-count",
      engine: "gemini",
      prompt: "count",
      input: { label: "x" },
    });
    expect(promptForRunner.status).toBe(422);
    expect(promptForRunner.body.error.violations).toContainEqual(expect.objectContaining({ pointer: "/prompt", field: "prompt" }));
    expect(JSON.stringify(promptForRunner.body.error)).toContain("renders its own prompt");

    const badMode = await client.json("POST", "/v1/jobs", {
      skill_id: SKILL,
      engine: "gemini",
      prompt: "x",
      options: { skill_install: "everywhere" },
    });
    expect(badMode.status).toBe(422);
    expect(JSON.stringify(badMode.body)).toContain("/options/skill_install");
    expect((await client.json("GET", "/v1/jobs")).body.jobs).toHaveLength(before);
  });
});
