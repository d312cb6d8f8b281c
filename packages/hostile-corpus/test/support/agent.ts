/**
 * What the agent rows share: the scenario a fixture's scripted agent plays, the job workspaces a run left, and the
 * check of what the agent recorded there (its uid, capabilities, and the attack's own log).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { type LoadedFixture, REPO, type Verdict } from "./fixtures.js";

export const GEMINI_PLUGIN = join(REPO, "plugins", "engine-gemini", "dist", "index.js");

/**
 * The fixture's scenario with every `{{file:NAME}}` string replaced by that file's content, and each `{{<var>}}`
 * of `vars` anywhere in a string by its value (an eval row's `{{skill_dir}}`).
 */
export function scenario(fixture: LoadedFixture, vars: Record<string, string> = {}): unknown {
  const fill = (value: unknown): unknown => {
    if (typeof value === "string") {
      const m = /^\{\{file:(.+)\}\}$/.exec(value);
      if (m) return readFileSync(join(fixture.dir, m[1]!), "utf8");
      return value.replace(/\{\{(\w+)\}\}/g, (all, name: string) => vars[name] ?? all);
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(JSON.parse(readFileSync(join(fixture.dir, fixture.spec.agent!.scenario), "utf8")));
}

/** Every `workspace/` folder of the job run folders under `runs`. */
export function workspaces(runs: string): string[] {
  if (!existsSync(runs)) return [];
  return readdirSync(runs, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name === "workspace")
    .map((e) => join(e.parentPath, e.name));
}

export function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** What the agent left in its workspace, checked against the verdict. */
export function checkAgent(fixture: LoadedFixture, ws: string | undefined, verdict: Verdict): { problems: string[]; observed: string[] } {
  const problems: string[] = [];
  const observed: string[] = [];
  const back = fixture.spec.agent!.reads_back;
  if (!ws) return { problems: ["no job workspace in the run folder"], observed };
  const probe = back.probe ? read(join(ws, back.probe)) : undefined;
  if (back.probe) observed.push(`probe: ${probe?.trim() ?? "missing"}`);
  for (const word of verdict.probe_excludes ?? [])
    if (probe?.includes(word)) problems.push(`the attack's log says ${word}: ${probe.trim()}`);
  if (verdict.agent_not_root) {
    const id = back.id ? read(join(ws, back.id)) : undefined;
    const status = back.status ? read(join(ws, back.status)) : undefined;
    observed.push(`id: ${id?.trim() ?? "missing"}`);
    const uid = /uid=(\d+)/.exec(id ?? "")?.[1];
    if (uid === undefined) problems.push(`no uid in ${back.id}: ${id}`);
    else if (uid === "0") problems.push("the agent runs as uid 0");
    const caps = Object.fromEntries([...(status ?? "").matchAll(/^(Cap\w+|NoNewPrivs|Seccomp):\s*(\S+)/gm)].map((m) => [m[1], m[2]]));
    observed.push(`status: ${JSON.stringify(caps)}`);
    for (const set of ["CapEff", "CapPrm", "CapBnd"]) {
      if (caps[set] === undefined) problems.push(`${set} missing from ${back.status}`);
      else if (!/^0+$/.test(caps[set]!)) problems.push(`the agent holds capabilities: ${set} ${caps[set]}`);
    }
  }
  return { problems, observed };
}

/**
 * A row's last word: the attack's marker must be in its log (in one of `workspaces`, so a fixture cannot pass by
 * doing nothing; `stderr` is the CLI's, shown when it is not), then no problem may be left.
 */
export function expectVerdict(fixture: LoadedFixture, workspaces: string[], stderr: string, problems: string[], observed: string[]): void {
  const marker = fixture.spec.attack_marker;
  if (marker) {
    const log = workspaces.map((w) => read(join(w, fixture.spec.agent!.reads_back.probe ?? "")) ?? "").join("");
    expect(
      log,
      `${fixture.id}: the attack's marker "${marker}" is not in its log: the attack did not run (${stderr.slice(-1500)})`,
    ).toContain(marker);
  }
  expect(problems, observed.join("\n")).toEqual([]);
}
