/**
 * The whole lifecycle with the real engine CLIs (@google/gemini-cli and @openai/codex, pinned by the engine
 * plugins) talking to @skillrig/mock-model on loopback: submit over HTTP, upload, live events, result, artifact.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel, type MockModel } from "@skillrig/mock-model";
import type { RunningServer } from "@skillrig/server";
import { craftZip } from "./support/craft-zip.js";
import { api, ECHO_ENGINE, makeProject, readEvents, startInProcess, type Api } from "./support/server-harness.js";

const KEY_ENV = "SKILLRIG_SERVER_TEST_KEY";
// The plugin as this package depends on it (vitest has no import.meta.resolve); the config names it by path.
const pluginPath = (name: string) => join(dirname(fileURLToPath(import.meta.url)), "..", "node_modules", name, "dist", "index.js");

describe.each(["gemini", "codex"])("the %s engine behind the server, against the mock model", (engine) => {
  let mock: MockModel;
  let server: RunningServer;
  let client: Api;

  beforeAll(async () => {
    process.env[KEY_ENV] = "server-test-key";
    // What the model does: write the report with the CLI's own file tool, then answer with the final JSON.
    mock = await startMockModel({
      scenario: {
        turns: [
          { write_file: { path: "report.txt", content: "essay: 5 words\n" } },
          { json: { words: 5, label: "essay", report: "report.txt" } },
        ],
      },
    });
    const options =
      engine === "gemini"
        ? { base_url: mock.url, api_key_env: KEY_ENV, model: "gemini-2.5-flash" }
        : { base_url: `${mock.url}/v1`, api_key_env: KEY_ENV, retries: 0 };
    const project = makeProject({}, { plugins: [ECHO_ENGINE, [pluginPath(`@skillrig/engine-${engine}`), options]] });
    server = await startInProcess(project);
    client = api(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    delete process.env[KEY_ENV];
  });

  it("runs a job from upload to artifact", async () => {
    const engines = (await client.json("GET", "/v1/engines")).body.engines.map((e: { name: string }) => e.name);
    expect(engines).toContain(engine);

    const created = await client.json("POST", "/v1/jobs", {
      skill_id: "word-count",
      engine,
      input: { label: "essay" },
      options: { timeout_ms: 90_000 },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const streamed = readEvents(server.url, id);
    expect((await client.upload(`/v1/jobs/${id}/upload`, craftZip([{ name: "text_file", data: "one two three four five" }]))).status).toBe(
      202,
    );
    const events = await streamed;

    const result = (await client.json("GET", `/v1/jobs/${id}/result`)).body;
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(result.output).toMatchObject({ words: 5, label: "essay" });
    expect(result.engine_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(events.filter((e) => e.event === "status").map((e) => e.payload.data.status)).toEqual([
      "waiting_upload",
      "queued",
      "running",
      "succeeded",
    ]);
    // The CLI's own tool call, streamed from the engine through runner.hooks.job.event to the SSE client.
    expect(events.some((e) => e.event === "engine" && e.payload.data.type === "tool_call")).toBe(true);
    expect(
      events.some(
        (e) => e.event === "engine" && e.payload.data.type === "file_change" && String(e.payload.data.path).endsWith("report.txt"),
      ),
    ).toBe(true);

    const download = await client.raw(`/v1/jobs/${id}/artifacts/report`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("essay: 5 words\n");
    expect(mock.requests.length).toBeGreaterThanOrEqual(2);
  });
});
