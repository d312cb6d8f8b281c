/**
 * 5c. Start-up: where a one-case `skillrig test` and `skillrig --version` spend their time, from `node --cpu-prof`
 * runs of the same commands (the CLI prints no timestamps of its own), beside `node -e ''` and a sandboxed
 * `python3 -S -c pass`: the least any one-case command that starts Node and a sandboxed interpreter pays.
 */
import { type Attempt, type Footnotes, attempt } from "../attempt.js";
import { type CommandPhases, commandPhases } from "../cpu-profile.js";
import { type Section, formatMs } from "../report.js";
import type { BenchSettings } from "../settings.js";
import { skillrigBin } from "../skillrig-test.js";
import { median } from "../stats.js";

const ONE_CASE_GOAL_MS = 300;

/** Of `runs` profiled runs of the command, the one with the median wall time. */
async function medianProfile(settings: BenchSettings, label: string, args: string[], runs: number): Promise<CommandPhases> {
  const profiles: CommandPhases[] = [];
  for (let i = 0; i < runs; i++) {
    settings.log(`start-up profile: ${label} with --cpu-prof (${i + 1}/${runs})`);
    profiles.push(await commandPhases(args, { cwd: settings.workDir, workDir: settings.workDir }));
  }
  const wall = median(profiles.map((p) => p.wallMs));
  return profiles.reduce((best, p) => (Math.abs(p.wallMs - wall) < Math.abs(best.wallMs - wall) ? p : best));
}

const jsTotal = (p: CommandPhases) => p.jsByPackage.reduce((sum, [, ms]) => sum + ms, 0);
const topPackages = (p: CommandPhases, count = 4) =>
  p.jsByPackage
    .slice(0, count)
    .map(([name, ms]) => `${name} ${formatMs(ms)}`)
    .join(", ");

function caseDurationMs(stdout: string): number | undefined {
  try {
    const report = JSON.parse(stdout) as { cases?: Array<{ duration_ms?: number }> };
    return report.cases?.[0]?.duration_ms;
  } catch {
    return undefined;
  }
}

export async function startupPhases(
  settings: BenchSettings,
  oneCaseArgs: string[],
  start: Attempt<{ version: number; node: number }>,
  sandboxedNoSite: Attempt<number>,
  notes: Footnotes,
): Promise<{ section: Section; versionBound: string; oneCaseBound: string }> {
  const runs = settings.quick ? 1 : 3;
  const test = await attempt(() => medianProfile(settings, "skillrig test (1 case)", oneCaseArgs, runs));
  const version = await attempt(() => medianProfile(settings, "skillrig --version", [skillrigBin(), "--version"], runs));
  const caseMs: Attempt<number> = test.ok
    ? (() => {
        const ms = caseDurationMs(test.value.stdout);
        return ms === undefined ? { ok: false, reason: "the report gave no duration_ms for its case" } : { ok: true, value: ms };
      })()
    : test;
  const phaseRow = (label: string, show: (p: CommandPhases) => string) => [label, notes.cell(test, show), notes.cell(version, show)];
  const rows: string[][] = [
    phaseRow("whole process (the profiled run with the median wall)", (p) => formatMs(p.wallMs)),
    phaseRow("Node start and exit (outside the profile's samples)", (p) => formatMs(p.nodeStartMs)),
    phaseRow("module loading (resolve, read, compile, evaluate)", (p) => formatMs(p.modulesMs)),
    phaseRow("JavaScript after loading (config, plugins, the runner, the report)", (p) => formatMs(jsTotal(p))),
    phaseRow("  by package, largest first", (p) => topPackages(p) || "-"),
    phaseRow("garbage collection and native code", (p) => formatMs(p.nativeMs)),
    phaseRow("waiting on child processes and I/O (sandbox and sample host start, the sample, the case)", (p) => formatMs(p.waitingMs)),
    ["  the case itself (duration_ms in the report)", notes.cell(caseMs, formatMs), ""],
    ["`node -e ''`, whole process (section 5's median)", notes.cell(start, (v) => formatMs(v.node)), ""],
    ["`python3 -S -c pass` through the sandbox at level namespaces (5b)", notes.cell(sandboxedNoSite, formatMs), ""],
  ];

  const lowerBound: Attempt<number> =
    start.ok && sandboxedNoSite.ok ? { ok: true, value: start.value.node + sandboxedNoSite.value } : { ok: false, reason: "" };
  const oneCaseBound = test.ok
    ? `in a profiled run (${formatMs(test.value.wallMs)}): Node start and exit ${formatMs(test.value.nodeStartMs)}, module loading ${formatMs(test.value.modulesMs)}, JavaScript after loading ${formatMs(jsTotal(test.value))} (${topPackages(test.value, 3)}), GC and native ${formatMs(test.value.nativeMs)}, waiting on child processes ${formatMs(test.value.waitingMs)}${caseMs.ok ? ` (the case itself ${formatMs(caseMs.value)})` : ""} (5c)${
        lowerBound.ok
          ? `; \`node -e ''\` plus a sandboxed \`python3 -S -c pass\`, the least a one-case command that starts Node and a sandboxed interpreter pays here, is ${formatMs(lowerBound.value)}${lowerBound.value >= ONE_CASE_GOAL_MS ? ", already over the goal: out of reach on this machine at this load" : ""}`
          : ""
      }`
    : `the start-up profile was not measured: ${test.reason}`;
  const versionBound =
    version.ok && start.ok
      ? `skillrig's own part is ${formatMs(start.value.version - start.value.node)} over \`node -e ''\`; in a profiled run: module loading ${formatMs(version.value.modulesMs)}, JavaScript after loading ${formatMs(jsTotal(version.value))}, GC and native ${formatMs(version.value.nativeMs)} (5c)`
      : `the start-up profile was not measured: ${version.ok ? (start.ok ? "" : start.reason) : version.reason}`;

  return {
    section: {
      title: "5c. Start-up: where a one-case `skillrig test` and `skillrig --version` spend their time",
      header: ["phase", "1-case `skillrig test`", "`skillrig --version`"],
      rows,
      notes: [
        `From \`node --cpu-prof\` runs of the same commands (${runs} each; the one with the median wall is shown): every sample of the profile is put in one phase by its stack. Module loading is any stack under Node's module loader (a module's top-level code included); waiting is the main thread idle (child processes, pipes, files); the rest is JavaScript, by the package of the nearest frame that has one (Node's built-ins count for the package that called them). Node start and exit is the wall time outside the profile's first and last sample. The profiler slows the JavaScript phases somewhat.`,
        "The bottom rows bound the one-case goal: any one-case command pays at least a Node start and, for a sandboxed case, a sandbox and an interpreter start.",
      ],
      figures: { test, version, caseMs },
    },
    versionBound,
    oneCaseBound,
  };
}
