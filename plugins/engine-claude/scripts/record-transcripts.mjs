#!/usr/bin/env node
/**
 * Records the tier-1 fixtures: the real, pinned `claude` binary run against @skillrig/mock-model with the same
 * command line and environment the adapter builds, one run per case below, into test/fixtures/transcripts/
 * (<name>.stdout, <name>.stderr, <name>.json with the exit code, arguments and scenario). Temporary paths are
 * replaced by /run/<name>/... so the files are the same on every machine.
 *
 *   pnpm build && node plugins/engine-claude/scripts/record-transcripts.mjs [name...]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFile } from "node:child_process";
import { startMockModel } from "@skillrig/mock-model";
import { resolvePackageBin } from "@skillrig/engine-kit";
import { QUIET_ENV } from "../dist/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = resolve(HERE, "../test/fixtures/transcripts");
const CLAUDE = resolvePackageBin("@anthropic-ai/claude-code", "claude", import.meta.url);
const SCHEMA = JSON.stringify({
  type: "object",
  properties: { greeting_file: { type: "string" }, message: { type: "string", minLength: 1 } },
  required: ["greeting_file", "message"],
  additionalProperties: false,
});
const BASE = ["-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence"];

/** name -> scenario, extra arguments, extra environment, and whether the model server is down. */
const CASES = {
  ok_write_structured: {
    scenario: {
      turns: [
        { write_file: { path: "greeting.txt", content: "Hello, Ada!\n" } },
        { json: { greeting_file: "greeting.txt", message: "" } },
        { json: { greeting_file: "greeting.txt", message: "Hello, Ada!" } },
      ],
    },
    args: ["--permission-mode", "acceptEdits", "--json-schema", SCHEMA],
  },
  ok_shell_text: {
    scenario: { turns: [{ shell: { command: "python3 -c 'print(6*7)'" } }, { echo_tool_output: true }] },
    args: ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"],
  },
  permission_denied: {
    scenario: { turns: [{ shell: { command: "python3 -c 'print(6*7)'" } }, { text: "I could not run it." }] },
    args: ["--permission-mode", "acceptEdits"],
  },
  auth_401: { scenario: { turns: [{ error: { status: 401 } }] }, args: [], env: { CLAUDE_CODE_MAX_RETRIES: "0" } },
  auth_401_retrying: { scenario: { turns: [{ error: { status: 401 } }] }, args: [], env: { CLAUDE_CODE_MAX_RETRIES: "2" } },
  server_500: {
    scenario: { turns: [{ error: { status: 500, message: "the mock is overloaded" } }] },
    args: [],
    env: { CLAUDE_CODE_MAX_RETRIES: "0" },
  },
  no_network: { scenario: { turns: [{ text: "never served" }] }, args: [], env: { CLAUDE_CODE_MAX_RETRIES: "4" }, serverDown: true },
  root_bypass: { scenario: { turns: [{ text: "never asked" }] }, args: ["--permission-mode", "bypassPermissions"] },
  invalid_schema: {
    scenario: { turns: [{ text: "never asked" }] },
    args: ["--json-schema", JSON.stringify({ type: "object", properties: { f: { type: "string", "x-type": "artifact" } } })],
  },
};

async function record(name, spec) {
  const root = mkdtempSync(join(tmpdir(), "claude-record-"));
  const dirs = { workspace: join(root, "workspace"), home: join(root, "home"), tmp: join(root, "tmp") };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  const mock = await startMockModel({ scenario: spec.scenario });
  if (spec.serverDown) await mock.close();
  const args = [...BASE, ...spec.args, "--", "Write a greeting for Ada into greeting.txt."];
  const env = {
    PATH: process.env.PATH,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    NO_COLOR: "1",
    TERM: "dumb",
    ...QUIET_ENV,
    ANTHROPIC_API_KEY: "sk-ant-record",
    ANTHROPIC_BASE_URL: mock.url,
    ...(spec.env ?? {}),
  };
  // Asynchronous on purpose: the mock model answers from this same process.
  const run = await new Promise((done) => {
    const child = execFile(
      CLAUDE,
      args,
      { cwd: dirs.workspace, env, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({
          exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0,
          stdout: stdout.trimEnd(),
          stderr: stderr.trimEnd(),
        }),
    );
    child.stdin?.end();
  });
  if (!spec.serverDown) await mock.close();
  const clean = (text) =>
    text
      .replaceAll(dirs.workspace, `/run/${name}/workspace`)
      .replaceAll(dirs.home, `/run/${name}/home`)
      .replaceAll(dirs.tmp, `/run/${name}/tmp`)
      .replaceAll(`127.0.0.1:${mock.port}`, "127.0.0.1:PORT");
  writeFileSync(join(OUT, `${name}.stdout`), `${clean(run.stdout)}\n`);
  writeFileSync(join(OUT, `${name}.stderr`), run.stderr ? `${clean(run.stderr)}\n` : "");
  const meta = {
    exitCode: run.exitCode ?? null,
    command: `claude ${args.map((a) => (/[\s"'{]/.test(a) ? JSON.stringify(a) : a)).join(" ")}`,
    env: spec.env ?? {},
    scenario: spec.scenario,
    serverDown: spec.serverDown === true,
    requests: mock.requests.map((r) => `${r.method} ${r.url} ${r.api} ${r.answer}`),
  };
  writeFileSync(join(OUT, `${name}.json`), `${JSON.stringify(meta, null, 2)}\n`);
  rmSync(root, { recursive: true, force: true });
  process.stdout.write(`${name}: exit ${meta.exitCode}, ${meta.requests.length} requests\n`);
}

mkdirSync(OUT, { recursive: true });
const wanted = process.argv.slice(2);
for (const [name, spec] of Object.entries(CASES)) if (wanted.length === 0 || wanted.includes(name)) await record(name, spec);
