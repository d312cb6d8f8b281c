/**
 * Reporters, chosen by name (`skillrig test --reporter <name>`). A plugin offers one by tapping
 * `runner.hooks.reporter.for("<name>")`, which claims the name; the tap is called only when a command is asked for
 * that reporter and returns the observer to apply (a plugin tapping `task.start`, `task.caseResult`, `runEnd`).
 * Built-in reporters are offered the same way (packages/oracle/src/reporters/reporters-plugin.ts).
 */
import { SkillrigError } from "./errors.js";
import type { SkillrigPlugin } from "./plugin.js";
import type { Runner } from "./runner.js";

/** What a command tells the reporter it asks for. */
export interface ReporterRequest {
  /**
   * What is graded: `task`, one task file (its report reaches `runEnd` with kind `task`), or `suite`, tasks and
   * samples (their report reaches `runEnd` with kind `suite`, `info.suite`; each sample's task run fires its own
   * `runEnd` too).
   */
  scope: "task" | "suite";
  /** The folder `--out` names, absolute; absent when none was given. A reporter that writes files and has none throws a usage error. */
  out?: string;
  /** `--json`: stdout holds only the command's JSON report, so a reporter writes its text to `stderr`. */
  json: boolean;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Says that a file was written (`wrote <file>` on stderr). */
  wrote(file: string): void;
}

/** Reports an unknown reporter name (listing what is offered), or applies the named reporters to the runner, in order. */
export function applyReporters(runner: Runner, names: readonly string[], request: ReporterRequest, field = "--reporter"): void {
  checkReporterNames(runner, names, field);
  for (const name of new Set(names)) {
    const reporter: SkillrigPlugin | undefined = runner.hooks.reporter.get(name)?.call(request);
    // A name claimed with runner.claim() alone (a plugin that observes every run) is already applied.
    if (reporter) runner.use(reporter);
  }
}

/** Throws a usage error naming every unknown reporter and what is offered. */
export function checkReporterNames(runner: Runner, names: readonly string[], field = "--reporter"): void {
  const available = runner.claims("reporter").map((c) => c.name);
  const unknown = [...new Set(names)].filter((name) => !available.includes(name));
  if (unknown.length === 0) return;
  const listed = unknown.map((name) => `"${name}"`).join(", ");
  throw new SkillrigError("usage", `unknown reporter ${listed}; available: ${available.join(", ") || "none"}`, { field });
}
