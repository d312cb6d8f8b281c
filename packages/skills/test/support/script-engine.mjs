/**
 * A small real engine for the tests: it runs a Python "agent" script (given per job in the engine options, or
 * as the plugin's `script` option) in the job's workspace, as an engine CLI would run there. The script gets the
 * rendered prompt on stdin and the resolved input, parameters and template context as JSON in SKILLRIG_JOB;
 * each stdout line becomes a `message` event; the last stdout line that parses as JSON is the final output.
 * Plain JavaScript so that the CLI can load it from a config's plugins list too.
 */
import { spawn } from "node:child_process";

export const SCRIPT_ENGINE = "script";

export class ScriptEngine {
  name = "test-script-engine";

  constructor(options = {}) {
    this.defaultScript = options.script;
  }

  apply(runner) {
    runner.claim("engine", SCRIPT_ENGINE, this.name);
    runner.hooks.job.execute.for(SCRIPT_ENGINE).tapPromise(this.name, async (request) => {
      const { work, input, parameter, prompt } = request;
      const script = String(work.engineOptions.script ?? this.defaultScript ?? "");
      return new Promise((resolvePromise) => {
        const child = spawn("python3", ["-c", script], {
          cwd: work.run.workspace,
          env: {
            ...process.env,
            ...request.runtime.env,
            SKILLRIG_JOB: JSON.stringify({ input, parameter, context: { ...work.context, input: undefined, parameter: undefined } }),
          },
          stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk) => {
          stderr += chunk.toString();
        });
        child.stdin.end(prompt.text);
        // The job's time limit or a cancel: stop the agent, as a real engine does.
        const stop = () => child.kill("SIGKILL");
        if (work.signal.aborted) stop();
        else work.signal.addEventListener("abort", stop, { once: true });
        child.on("close", (code) => {
          work.signal.removeEventListener("abort", stop);
          if (work.signal.aborted) {
            const timedOut = work.signal.reason?.name === "TimeoutError";
            resolvePromise({
              ok: false,
              exit: { code, signal: null },
              failure: { kind: timedOut ? "timeout" : "canceled", message: timedOut ? "the job's time limit passed" : "canceled" },
            });
            return;
          }
          const lines = stdout.split("\n").filter((l) => l.trim() !== "");
          for (const line of lines) work.emit({ type: "message", role: "assistant", text: line });
          let output;
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
              ? { ok: true, output, rawOutput: stdout, exit: { code, signal: null } }
              : {
                  ok: false,
                  exit: { code, signal: null },
                  failure: { kind: "crash", message: `agent script exited ${code}: ${stderr.trim().split("\n").pop()}` },
                },
          );
        });
      });
    });
  }
}

export default function scriptEngine(options) {
  return new ScriptEngine(options);
}
