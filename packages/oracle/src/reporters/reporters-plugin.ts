/**
 * The built-in reporters, offered by name through core's `reporter` hook (`skillrig test --reporter <name>`):
 * console, json, junit and html, each for one task (`scope: "task"`, files named after the task) and for a suite
 * (`scope: "suite"`, `suite.*`). A command asks for them with core's `applyReporters`; a team's reporter plugin
 * offers its own names the same way.
 */
import { type ReporterRequest, type Runner, type SkillrigPlugin, SkillrigError } from "@skillrig/core";
import { ConsoleReporter } from "./console-reporter.js";
import { JsonReporter } from "./json-reporter.js";
import { JunitReporter } from "./junit-reporter.js";
import { writeReportFile } from "./report-file.js";

const PLUGIN = "@skillrig/oracle:reporters";

/** The file a reporter writes, as its usage error names it. */
const FILE_NAMES: Record<"junit" | "html", Record<ReporterRequest["scope"], string>> = {
  junit: { task: "<task_id>.junit.xml", suite: "suite.junit.xml" },
  html: { task: "<task_id>.html", suite: "suite.html" },
};

/** A plugin observing only `runEnd`, as the reporters below are for a suite and for html. */
function onRunEnd(name: string, write: (info: Parameters<Parameters<Runner["hooks"]["runEnd"]["tapPromise"]>[1]>[0]) => Promise<void>) {
  return { name: `${PLUGIN}:${name}`, apply: (runner: Runner) => runner.hooks.runEnd.tapPromise(`${PLUGIN}:${name}`, write) };
}

/** The folder a file-writing reporter writes to, or the usage error saying it needs one. */
function outOf(request: ReporterRequest, reporter: "junit" | "html"): string {
  if (request.out) return request.out;
  throw new SkillrigError("usage", `--reporter ${reporter} writes ${FILE_NAMES[reporter][request.scope]} and needs --out <dir>`, {
    field: "--out",
  });
}

/** The per-case progress and the summary table; with --json, all of it on stderr. A suite's summary table at its end. */
function consoleReporter(request: ReporterRequest): SkillrigPlugin {
  const summary = request.json ? request.stderr : request.stdout;
  if (request.scope === "task") return new ConsoleReporter({ progress: request.stderr, summary });
  return onRunEnd("console", async (info) => {
    if (info.kind !== "suite" || !info.suite) return;
    const { formatSuiteSummary } = await import("./suite-summary.js");
    summary.write(formatSuiteSummary(info.suite));
  });
}

/** The JSON report: into --out when given, else on stdout (with --json the command prints it there already). */
function jsonReporter(request: ReporterRequest): SkillrigPlugin | undefined {
  const { out } = request;
  if (!out && request.json) return undefined;
  if (request.scope === "task")
    return new JsonReporter(out ? { dir: out, onFile: (file) => request.wrote(file) } : { stream: request.stdout });
  return onRunEnd("json", async (info) => {
    if (info.kind !== "suite" || !info.suite) return;
    const { toSuiteJson } = await import("./suite-json.js");
    const text = `${JSON.stringify(toSuiteJson(info.suite), null, 2)}\n`;
    if (out) request.wrote(await writeReportFile(out, "suite", ".json", text));
    else request.stdout.write(text);
  });
}

/** JUnit XML into --out: one file per task (`<task_id>.junit.xml`), or `suite.junit.xml`. */
function junitReporter(request: ReporterRequest): SkillrigPlugin {
  const out = outOf(request, "junit");
  if (request.scope === "task") return new JunitReporter({ dir: out, onFile: (file) => request.wrote(file) });
  return onRunEnd("junit", async (info) => {
    if (info.kind !== "suite" || !info.suite) return;
    const { toSuiteJunitXml } = await import("./suite-junit.js");
    request.wrote(await writeReportFile(out, "suite", ".junit.xml", `${toSuiteJunitXml(info.suite)}\n`));
  });
}

/** One self-contained page (styles inline, no script, nothing fetched), failing cases first. */
function htmlReporter(request: ReporterRequest): SkillrigPlugin {
  const out = outOf(request, "html");
  return onRunEnd("html", async (info) => {
    const { renderHtmlReport } = await import("./html-report.js");
    if (request.scope === "task" && info.kind === "task" && info.report)
      request.wrote(await writeReportFile(out, info.report.task_id, ".html", renderHtmlReport({ task: info.report })));
    else if (request.scope === "suite" && info.kind === "suite" && info.suite)
      request.wrote(await writeReportFile(out, "suite", ".html", renderHtmlReport({ suite: info.suite })));
  });
}

/** Offers console, json, junit and html on core's `reporter` hook. A CLI built-in. */
export class BuiltinReporters implements SkillrigPlugin {
  readonly name = PLUGIN;

  apply(runner: Runner): void {
    const offer = runner.hooks.reporter;
    offer.for("console").tap(this.name, consoleReporter);
    offer.for("json").tap(this.name, jsonReporter);
    offer.for("junit").tap(this.name, junitReporter);
    offer.for("html").tap(this.name, htmlReporter);
  }
}

export const builtinReporters = (): SkillrigPlugin => new BuiltinReporters();
