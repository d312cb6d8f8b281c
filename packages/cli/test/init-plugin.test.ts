/**
 * `skillrig init --plugin engine|deliverable|assertion NAME`: the scaffolded package is publishable as it is (files,
 * exports, core as a peer at this release's major), installed against this workspace's packages (links, as `npm i`
 * of tarballs would place them) it builds with tsc and its own vitest test passes, and linked into a project as
 * `npm i -D ../NAME` links it, the real `skillrig` runs it: a skill job on the engine, a task graded by the type, an
 * eval (offline: the real Gemini CLI against the mock model) graded by the assertion kind.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, runCommand, runNode, skillrig } from "./processes.js";

const CORE_VERSION: string = JSON.parse(readFileSync(join(REPO, "packages/core/package.json"), "utf8")).version;
const [MAJOR, MINOR] = CORE_VERSION.split(".");
const RANGE = MAJOR === "0" ? `^0.${MINOR}.0` : `^${MAJOR}.0.0`;

/** Links each of the package's dependencies to this workspace's copy (what `npm i` of their tarballs would place). */
function installAgainstWorkspace(dir: string): void {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const wanted = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
  for (const name of wanted) {
    const source = name.startsWith("@skillrig/")
      ? join(REPO, "packages", name.slice("@skillrig/".length))
      : join(REPO, "node_modules", name);
    mkdirSync(join(dir, "node_modules", name, ".."), { recursive: true });
    symlinkSync(source, join(dir, "node_modules", name));
  }
}

/** A project with skillrig's packages installed and the plugin linked from its sibling folder. */
function projectWith(root: string, pkg: string, folder: string, config: Record<string, unknown>): string {
  const dir = join(root, "project");
  mkdirSync(join(dir, "node_modules/@skillrig"), { recursive: true });
  for (const name of ["core", "engine-kit", "deliverable-kit", "assertion-kit"])
    symlinkSync(join(REPO, "packages", name), join(dir, "node_modules/@skillrig", name));
  mkdirSync(join(dir, "node_modules", pkg, ".."), { recursive: true });
  symlinkSync(join(root, folder), join(dir, "node_modules", pkg));
  writeFileSync(join(dir, "skillrig.config.json"), JSON.stringify({ plugins: [pkg], ...config }));
  return dir;
}

async function scaffold(kind: string, pkg: string, folder: string) {
  const root = mkdtempSync(join(tmpdir(), `skillrig-init-plugin-${kind}-`));
  const r = await skillrig(["init", "--plugin", kind, pkg, "--json"], root);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const created = JSON.parse(r.stdout);
  expect(created).toMatchObject({ kind, name: pkg, folder, dir: join(root, folder) });
  const dir = join(root, folder);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  expect(manifest).toMatchObject({
    name: pkg,
    type: "module",
    files: expect.arrayContaining(["dist", "README.md"]),
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" } },
    peerDependencies: { "@skillrig/core": RANGE },
    scripts: { build: "tsc -p tsconfig.json", test: "vitest run" },
  });
  expect(manifest.dependencies?.["@skillrig/core"]).toBeUndefined();
  expect(JSON.stringify(manifest)).not.toContain("workspace:");
  expect(readFileSync(join(dir, "README.md"), "utf8")).toContain(`npm i -D ${pkg}`);

  installAgainstWorkspace(dir);
  const build = await runNode([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], dir);
  expect(build.code, build.stdout + build.stderr).toBe(0);
  const test = await runNode([join(REPO, "node_modules/vitest/vitest.mjs"), "run", "--root", dir], dir);
  expect(test.code, test.stdout + test.stderr).toBe(0);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its summary
  expect(test.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests\s+\d+ passed \(\d+\)/);
  // What npm would publish: the built code and the README, not the tests or the sources.
  const pack = await runCommand("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], dir);
  expect(pack.code, pack.stderr).toBe(0);
  const packed = (JSON.parse(pack.stdout)[0].files as { path: string }[]).map((f) => f.path);
  expect(packed).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts"]));
  expect(packed.filter((path) => path.startsWith("test/") || path.startsWith("src/") || path.startsWith("node_modules/"))).toEqual([]);
  return { root, dir, packed };
}

describe("skillrig init --plugin", () => {
  it("scaffolds an engine plugin whose test passes and whose engine runs a skill job through skillrig", async () => {
    const { root, dir, packed } = await scaffold("engine", "@acme/skillrig-engine-hello", "skillrig-engine-hello");
    expect(packed).toContain("bin/agent.mjs");
    // What a project installs with the plugin: engine-kit alone; the sandbox and the mock model only for its own tests.
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies)).toEqual(["@skillrig/engine-kit"]);
    expect(manifest.devDependencies).toMatchObject({ "@skillrig/sandbox": RANGE, "@skillrig/mock-model": RANGE });
    const project = projectWith(root, "@acme/skillrig-engine-hello", "skillrig-engine-hello", { skills: { roots: ["skills"] } });
    cpSync(join(dir, "test/fixtures/skills"), join(project, "skills"), { recursive: true });

    const listed = await skillrig(["plugins", "--json"], project);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).plugins[0]).toEqual({
      name: "@acme/skillrig-engine-hello",
      source: {
        kind: "linked",
        package: "@acme/skillrig-engine-hello",
        version: "0.1.0",
        path: dir,
        link: join(project, "node_modules/@acme/skillrig-engine-hello"),
      },
      claims: ["engine:hello"],
    });
    const job = await skillrig(["run", "echo-inputs", "--engine", "hello", "--input", "name=Ada", "--json"], project);
    expect(job.code, job.stdout + job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toMatchObject({ status: "succeeded", output: { name: "Ada" } });
  }, 600_000);

  it("scaffolds a deliverable type whose test passes and which grades its fixture task through skillrig", async () => {
    const { root, dir } = await scaffold("deliverable", "skillrig-deliverable-shout", "skillrig-deliverable-shout");
    const project = projectWith(root, "skillrig-deliverable-shout", "skillrig-deliverable-shout", {});
    const r = await skillrig(
      ["test", join(dir, "test/fixtures/task.json"), "--deliverable", join(dir, "test/fixtures/solution"), "--json"],
      project,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ total: 3, passed: 3 });
  }, 600_000);

  it("scaffolds an assertion kind whose test passes and which grades an eval through skillrig, with pointers for bad fields", async () => {
    const pkg = "@acme/skillrig-assertion-csv-loads";
    const { root } = await scaffold("assertion", pkg, "skillrig-assertion-csv-loads");
    const project = projectWith(root, pkg, "skillrig-assertion-csv-loads", {});
    const scenario = join(project, "scenario.json");
    writeFileSync(
      join(project, "skillrig.config.json"),
      JSON.stringify({
        plugins: [
          pkg,
          [join(REPO, "plugins/engine-gemini/dist/index.js"), { approval_mode: "yolo", mock_scenario: scenario, timeout_ms: 120000 }],
        ],
        skills: { roots: ["skills"] },
        runs_dir: "runs",
      }),
    );
    // With the skill listed (its description is in the request) the agent writes a CSV that loads; without it, one
    // whose second row has a cell too many.
    const description = "Write a month-by-revenue report as report.csv. Use it when asked for a monthly revenue report.";
    const prompt = "Write the monthly revenue report to report.csv.";
    writeFileSync(
      scenario,
      JSON.stringify({
        branches: [
          {
            prompt_contains: [prompt, description],
            turns: [
              { write_file: { path: "report.csv", content: "month,revenue\n2025-07,18250\n2025-05,16400\n" } },
              { text: "The report is in report.csv." },
            ],
          },
          {
            prompt_contains: [prompt],
            turns: [
              { write_file: { path: "report.csv", content: "month,revenue\n2025-07,18250\n2025-05,16,400\n" } },
              { text: "The report is in report.csv." },
            ],
          },
        ],
        turns: [{ text: "ok" }],
      }),
    );
    const skill = join(project, "skills/monthly-report");
    mkdirSync(join(skill, "evals"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      `---\nname: monthly-report\ndescription: ${description}\n---\n\n# monthly-report\n\nWrite report.csv with the columns month and revenue.\n`,
    );
    const evalsFile = join(skill, "evals/evals.json");
    const writeEvals = (assertions: unknown[]) =>
      writeFileSync(evalsFile, JSON.stringify({ skill_name: "monthly-report", evals: [{ id: 1, prompt, assertions }] }));

    const listed = await skillrig(["plugins", "--json"], project);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).plugins[0]).toMatchObject({ name: pkg, claims: ["assertion:csv_loads"] });

    // The kind's schema checks evals.json before anything runs: each problem at its pointer, exit 2, no run folder.
    writeEvals([
      { kind: "csv_loads", paht: "report.csv", min_rows: -1 },
      { kind: "csv_load", path: "report.csv" },
    ]);
    const bad = await skillrig(["eval", "monthly-report", "--engine", "gemini", "--no-triggers", "--json"], project);
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    const error = JSON.parse(bad.stdout).error;
    expect(error).toMatchObject({ code: "invalid_skill", file: evalsFile });
    expect(error.violations.map((v: { pointer: string }) => v.pointer)).toEqual([
      "/evals/0/assertions/0/path",
      "/evals/0/assertions/0/paht",
      "/evals/0/assertions/0/min_rows",
      "/evals/0/assertions/1/kind",
    ]);
    expect(error.violations[3].message).toContain('unknown assertion kind "csv_load" (did you mean "csv_loads"?): expected one of');
    expect(error.violations[3].message).toContain("csv_loads");
    expect(existsSync(join(project, "runs"))).toBe(false);

    writeEvals([{ kind: "csv_loads", path: "report.csv", columns: ["month", "revenue"], min_rows: 2 }]);
    const run = await skillrig(["eval", "monthly-report", "--engine", "gemini", "--no-triggers", "--json"], project);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const iteration = JSON.parse(run.stdout).dir as string;
    const grading = (configuration: string) =>
      JSON.parse(readFileSync(join(iteration, "eval-1", configuration, "grading.json"), "utf8")).assertion_results;
    expect(grading("with_skill")).toEqual([
      {
        text: "report.csv loads as CSV with columns month, revenue",
        passed: true,
        evidence: "report.csv loads: 2 rows, columns month, revenue",
        graded_by: "csv_loads",
      },
    ]);
    expect(grading("without_skill")).toEqual([
      {
        text: "report.csv loads as CSV with columns month, revenue",
        passed: false,
        evidence: "report.csv does not load: line 3: 3 cells where the header has 2 (month, revenue)",
        graded_by: "csv_loads",
      },
    ]);
  }, 900_000);

  it("refuses a kind it does not know and a name npm would refuse, saying what to pass", async () => {
    const root = mkdtempSync(join(tmpdir(), "skillrig-init-plugin-"));
    const usageError = async (args: string[]) => {
      const r = await skillrig(["init", "--plugin", ...args, "--json"], root);
      expect(r.code).toBe(2);
      return JSON.parse(r.stdout).error;
    };
    expect(await usageError(["reporter", "x"])).toMatchObject({
      code: "usage",
      field: "--plugin",
      message: '--plugin must be one of engine, deliverable, assertion, not "reporter"',
    });
    expect(await usageError(["engine", "My Engine"])).toMatchObject({
      code: "usage",
      field: "name",
      hint: "skillrig init --plugin engine @acme/skillrig-engine-mine",
    });
  });
});
