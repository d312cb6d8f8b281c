/**
 * `skillrig test <task-file> --deliverable <file-or-folder>`: grades a deliverable against a task file.
 * Exit 0 when every case passed, 1 when any case did not pass, 2 when the task file or any case is invalid
 * or the command is misused. With --json, stdout holds only the JSON report.
 */
import { InvalidArgumentError } from "commander";
import { SkillrigError, type SkillrigPlugin } from "@skillrig/core";
import { ConsoleReporter, JsonReporter, JunitReporter, loadTask, resolveDeliverable, runTask } from "@skillrig/oracle";
import type { CommandModule } from "../command.js";
import { ExitCode } from "../exit-codes.js";

const REPORTERS = ["console", "json", "junit"] as const;

interface TestOptions {
  deliverable: string;
  reporter?: string[];
  out?: string;
  jobs?: number;
  strict?: boolean;
  sandboxLevel?: SandboxLevel;
}

const SANDBOX_LEVELS = ["auto", "namespaces", "rlimits", "none"] as const;
type SandboxLevel = (typeof SANDBOX_LEVELS)[number];

function parseSandboxLevel(value: string): SandboxLevel {
  if (!(SANDBOX_LEVELS as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${SANDBOX_LEVELS.join(", ")}`);
  }
  return value as SandboxLevel;
}

function parseJobs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number of at least 1");
  return n;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(",").filter(Boolean)];
}

export const testCommand: CommandModule = {
  register(program, context, setExit) {
    program
      .command("test")
      .description("Grade a deliverable (function, script or cli) against a task file's test cases")
      .argument("<task-file>", "task file (JSON, Task Oracle Input Contract v1.0)")
      .requiredOption("-d, --deliverable <file-or-folder>", "the code under test: a .py file, or a folder holding it")
      .option("--reporter <name>", `reporter to use, repeatable: ${REPORTERS.join(", ")} (default console)`, collect)
      .option("--out <dir>", "folder for report files (json: <task_id>.json, junit: <task_id>.junit.xml)")
      .option("-j, --jobs <n>", "cases run at once (default: oracle.jobs from the config, else the number of cores)", parseJobs)
      .option("--strict", "refuse the whole task, before running anything, if any case is invalid")
      .option(
        "--sandbox-level <level>",
        `isolation level for the code under test, overriding sandbox.level: ${SANDBOX_LEVELS.join(", ")}. Grading at "rlimits" or "none" (where the code can reach the hidden tests) happens only when named here or in the config`,
        parseSandboxLevel,
      )
      .addHelpText(
        "after",
        "\nExit codes: 0 every case passed, 1 a case did not pass, 2 the task file or a case is invalid, or misuse.\n" +
          "With --json, stdout holds only {task_id, summary, cases: [{name, status, duration_ms, expected, actual, message}]}.\n",
      )
      .action(async (taskFile: string, options: TestOptions, command) => {
        const ctx = context(command);
        const json = ctx.global.json ?? false;
        const requested = options.reporter ?? [];
        if (requested.includes("junit") && !options.out) {
          throw new SkillrigError("usage", "--reporter junit writes <task_id>.junit.xml and needs --out <dir>", { field: "--out" });
        }

        if (options.sandboxLevel) {
          // Before the runner exists: the sandbox plugin reads sandbox.level when it is first asked for a sandbox.
          const config = (await ctx.config()).config;
          config.sandbox = { ...config.sandbox, level: options.sandboxLevel };
        }
        const loaded = await loadTask(taskFile, ctx.cwd);
        const deliverable = await resolveDeliverable(options.deliverable, loaded.task, ctx.cwd);
        const runner = await ctx.runner();
        // Reporters a config plugin claims are already applied: naming them is fine; any other name is a typo.
        const available = [...new Set([...REPORTERS, ...runner.claims("reporter").map((c) => c.name)])];
        const unknown = requested.filter((r) => !available.includes(r));
        if (unknown.length > 0) {
          const names = unknown.map((r) => `"${r}"`).join(", ");
          throw new SkillrigError("usage", `unknown reporter ${names}; available: ${available.join(", ")}`, { field: "--reporter" });
        }
        const { stdout, stderr } = ctx.out.streams;
        const onFile = (file: string) => stderr.write(`wrote ${file}\n`);
        const chosen = new Set(requested.length > 0 ? requested : json ? [] : ["console"]);
        const reporters: SkillrigPlugin[] = [];
        // With --json, stdout is reserved for the JSON report, so the console reporter writes all of its text to stderr.
        if (chosen.has("console")) reporters.push(new ConsoleReporter({ progress: stderr, summary: json ? stderr : stdout }));
        if (json)
          reporters.push(new JsonReporter({ stream: stdout, ...(chosen.has("json") && options.out ? { dir: options.out, onFile } : {}) }));
        else if (chosen.has("json")) reporters.push(new JsonReporter(options.out ? { dir: options.out, onFile } : { stream: stdout }));
        if (chosen.has("junit")) reporters.push(new JunitReporter({ dir: options.out!, onFile }));
        for (const reporter of reporters) runner.use(reporter);

        const oracle = runner.config.oracle ?? {};
        const abort = new AbortController();
        const onSigint = () => abort.abort();
        process.once("SIGINT", onSigint);
        try {
          const report = await runTask(runner, {
            loaded,
            deliverable,
            jobs: options.jobs ?? oracle.jobs,
            strict: options.strict ?? oracle.strict ?? false,
            signal: abort.signal,
          });
          const s = report.summary;
          setExit(s.invalid > 0 ? ExitCode.InvalidInput : s.passed === s.total ? ExitCode.Success : ExitCode.Failure);
        } finally {
          process.off("SIGINT", onSigint);
        }
      });
  },
};
