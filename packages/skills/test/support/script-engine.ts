/**
 * A small real engine for the tests: it runs a Python "agent" script (given per job in the engine options) in the
 * job's workspace, as an engine CLI would run there. The script sees the rendered prompt on stdin, and the
 * resolved input, parameters and template context as JSON in SKILLRIG_JOB; each stdout line becomes a
 * `message` event and the last stdout line that parses as JSON is the final output.
 */
import { spawn } from "node:child_process";
import type { EngineOutcome, Runner, SkillrigPlugin } from "@skillrig/core";

export const SCRIPT_ENGINE = "script";

export class ScriptEngine implements SkillrigPlugin {
  readonly name = "test-script-engine";

  apply(runner: Runner): void {
    runner.claim("engine", SCRIPT_ENGINE, this.name);
    runner.hooks.execute.tapPromise(this.name, async (request) => {
      if (request.work.kind !== "job" || request.work.engine !== SCRIPT_ENGINE) return undefined;
      const { work, input, parameter, prompt } = request;
      const script = String(work.engineOptions.script ?? "");
      return new Promise<EngineOutcome>((resolvePromise) => {
        const child = spawn("python3", ["-c", script], {
          cwd: work.run.workspace,
          env: {
            ...process.env,
            ...work.env,
            SKILLRIG_JOB: JSON.stringify({ input, parameter, context: { ...work.context, input: undefined, parameter: undefined } }),
          },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.stdin.end(prompt.text);
        child.on("close", (code) => {
          const lines = stdout.split("\n").filter((l) => l.trim() !== "");
          for (const line of lines) work.emit({ type: "message", role: "assistant", text: line });
          let output: unknown;
          for (const line of [...lines].reverse()) {
            try {
              output = JSON.parse(line);
              break;
            } catch {
              // not the final JSON
            }
          }
          resolvePromise(
            code === 0
              ? { kind: "engine", ok: true, output, rawOutput: stdout, exitCode: code }
              : { kind: "engine", ok: false, exitCode: code, failure: { kind: "crash", message: `agent script exited ${code}: ${stderr.trim().split("\n").pop()}` } },
          );
        });
      });
    });
  }
}
