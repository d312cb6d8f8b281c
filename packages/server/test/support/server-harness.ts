/** Starts real servers on loopback over a real data folder, and talks to them over real HTTP. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRunner, loadConfig, type SkillrigConfig } from "@skillrig/core";
import { runConfigSection, skillProtocolPlugin, skillsConfigSection } from "@skillrig/skills";
import { compareModesPlugin, oracleConfigSection } from "@skillrig/oracle";
import scriptPlugin from "@skillrig/deliverable-script";
import sandboxPlugin, { sandboxConfigSection } from "@skillrig/sandbox";
import { serverConfigSection, startServer, type RunningServer, type ServerOverrides } from "@skillrig/server";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { startRedis, type TestRedis } from "./redis-server.js";

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = resolve(here, "..", "fixtures");
export const ECHO_ENGINE = join(FIXTURES, "echo-engine.mjs");

/** A fresh folder with a skillrig.config.json using the fixture skills and the echo engine. */
export function makeProject(server: NonNullable<SkillrigConfig["server"]> = {}, extra: Partial<SkillrigConfig> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-server-"));
  const config: SkillrigConfig = {
    plugins: [ECHO_ENGINE],
    skills: { roots: [join(FIXTURES, "skills")] },
    server: { data_dir: "data", ...server },
    ...extra,
  };
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify(config, null, 2));
  return dir;
}

/** An oracle task whose script deliverable `double.py` (`print(int(input()) * 2)`) passes "two" and fails "five". */
export const DOUBLE_TASK = {
  contract_version: "1.0",
  task_id: "double",
  deliverable_type: "script",
  entrypoint: "double.py",
  tests: [
    { name: "two", input: { stdin: "2\n" }, expected: { stdout: "4\n" } },
    { name: "five", input: { stdin: "5\n" }, expected: { stdout: "11\n" } },
  ],
};

/** The queue backends every API suite runs against (describe.each). */
export const BACKENDS = ["sqlite", "redis"] as const;
export type Backend = (typeof BACKENDS)[number];

export interface BackendUnderTest {
  backend: Backend;
  /** `server.queue` for a new project on this backend (with redis, a key prefix of its own, so projects do not meet). */
  queue(): NonNullable<SkillrigConfig["server"]>["queue"];
  redis?: TestRedis;
  stop(): Promise<void>;
}

/** For redis, a real redis-server of the suite's own on a free loopback port; for sqlite, nothing to start. */
export async function openBackend(backend: Backend, options: { aof?: boolean } = {}): Promise<BackendUnderTest> {
  if (backend === "sqlite") return { backend, queue: () => ({ backend: "sqlite" }), stop: async () => undefined };
  const redis = await startRedis(options);
  let projects = 0;
  return {
    backend,
    // Quick crash detection in tests; the defaults (10 s + 5 s) are what docs/server.md states.
    queue: () => ({ backend: "redis", url: redis.url, prefix: `test${++projects}`, lock_ms: 2000, stalled_check_ms: 1000 }),
    redis,
    stop: () => redis.stop(),
  };
}

/** Starts the server in this process, as `skillrig serve` does: the config's plugins, then the CLI's built-ins it needs. */
export async function startInProcess(projectDir: string, overrides: ServerOverrides = {}): Promise<RunningServer> {
  const sections = [serverConfigSection, oracleConfigSection, skillsConfigSection, runConfigSection, sandboxConfigSection];
  const loaded = await loadConfig({ cwd: projectDir, sections });
  const builtins = [compareModesPlugin(), scriptPlugin(), skillProtocolPlugin(), sandboxPlugin()];
  const runner = await createRunner(loaded, { cwd: projectDir, builtins });
  return startServer({ runner, overrides: { port: 0, ...overrides } });
}

export interface Api {
  url: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them
  json<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T; headers: Headers }>;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them
  upload(path: string, zip: Buffer, contentType?: string): Promise<{ status: number; body: any }>;
  raw(path: string, init?: RequestInit): Promise<Response>;
}

export function api(url: string, token?: string): Api {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    url,
    async json(method, path, body, headers = {}) {
      const response = await fetch(url + path, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
    },
    async upload(path, zip, contentType = "application/zip") {
      const response = await fetch(url + path, { method: "POST", headers: { ...auth, "content-type": contentType }, body: zip });
      return { status: response.status, body: await response.json() };
    },
    raw(path, init = {}) {
      return fetch(url + path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
    },
  };
}

export interface SseEvent {
  id: number;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them
  payload: { seq: number; job_id: string; type: string; data: any };
}

/**
 * Reads a job's SSE stream until it ends or `stopWhen` says so (then disconnects). Parsing uses
 * eventsource-parser, the parser the `eventsource` package is built on.
 */
export async function readEvents(
  url: string,
  jobId: string,
  options: { lastEventId?: number; stopWhen?: (e: SseEvent, all: SseEvent[]) => boolean; token?: string } = {},
): Promise<SseEvent[]> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.lastEventId !== undefined) headers["last-event-id"] = String(options.lastEventId);
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${url}/v1/jobs/${jobId}/events`, { headers, signal: controller.signal });
  if (response.status !== 200) throw new Error(`events answered ${response.status}: ${await response.text()}`);
  const events: SseEvent[] = [];
  let stop = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (stop) return;
      const event = { id: Number(message.id), event: message.event ?? "message", payload: JSON.parse(message.data) };
      events.push(event);
      if (options.stopWhen?.(event, events)) stop = true;
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (stop) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if (!stop) throw error;
  }
  return events;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls GET /v1/jobs/{id} until the status is one of `statuses`. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of many shapes; the assertions check them
export function waitForStatus(client: Api, id: string, statuses: string[], timeoutMs?: number): Promise<any> {
  return waitFor(
    `job ${id} to reach ${statuses.join("/")}`,
    async () => {
      const { body } = await client.json("GET", `/v1/jobs/${id}`);
      return statuses.includes(body.status) ? body : undefined;
    },
    timeoutMs,
  );
}
