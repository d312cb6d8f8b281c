/**
 * Ctrl-C on `skillrig run`: a real skillrig child process runs a job through the real gemini CLI against a mock
 * model that never answers; SIGINT cancels it. result.json must say canceled (status and error code), the exit
 * code is 130, and nothing of the job keeps running.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../..");
const bin = join(REPO, "packages/cli/dist/bin.js");

/** Live processes whose command line names `path` (the engine and anything it started). */
function processesNaming(path: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z")) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmd.includes(path)) out.push(`${pid} ${cmd.slice(0, 120)}`);
    } catch {
      // gone
    }
  }
  return out;
}

describe("skillrig run and Ctrl-C", () => {
  it("SIGINT while the engine runs leaves result.json with status canceled and error code canceled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skillrig-cancel-"));
    writeFileSync(
      join(dir, "skillrig.config.json"),
      JSON.stringify({
        plugins: [[join(REPO, "plugins/engine-gemini/dist/index.js"), { mock_scenario: { turns: [{ hang: true }] }, timeout_ms: 300000 }]],
        skills: { roots: [join(REPO, "examples/hello-skill/skills")] },
      }),
    );
    const runsDir = join(dir, "runs");
    const child = spawn(
      process.execPath,
      [
        bin,
        "run",
        "word-stats",
        "--engine",
        "gemini",
        "--file",
        `text=${join(REPO, "examples/hello-skill/notes.txt")}`,
        "--runs-dir",
        runsDir,
      ],
      { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    // Wait for the engine to be running (its status line), then press Ctrl-C.
    await new Promise<void>((ready, fail) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/Gemini CLI \d/.test(stderr)) ready();
      });
      child.on("exit", () => fail(new Error(`skillrig ended before the engine ran: ${stderr}`)));
    });
    child.kill("SIGINT");
    const code = await exited;
    expect(code, stderr).toBe(130);
    const [jobId] = readdirSync(runsDir);
    const result = JSON.parse(readFileSync(join(runsDir, jobId!, "result.json"), "utf8"));
    expect(result.status).toBe("canceled");
    expect(result.error.code).toBe("canceled");
    expect(result.error.message).toMatch(/the job was canceled; Gemini CLI and its child processes were killed/);
    expect(stderr).toContain("SIGINT: canceling the job");
    expect(processesNaming(join(runsDir, jobId!))).toEqual([]);
  });
});
