/**
 * skillrig as a user installs it. Every package is packed and installed with npm into a project outside the
 * repository (see support/packed-release.ts for the cached project), then, from folders in that project:
 * `npx skillrig init`, `test` on the scaffolded task, `run` of the scaffolded skill with the gemini engine named by
 * package (the real Gemini CLI against @skillrig/mock-model's loopback server), `solve`, `serve`, and a plugin
 * package written here with its own copy of @skillrig/core whose coded errors must keep their codes.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InstalledRelease, installRelease, REPO } from "./support/packed-release.js";
import { run, start, userEnv } from "./support/processes.js";

let release: InstalledRelease;
let work: string;
const started = Date.now();

/** `npx skillrig ...` as the README says; `--no` so a missing local install fails instead of fetching a package named skillrig. */
const skillrig = (cwd: string, ...args: string[]) => run("npx", ["--no", "skillrig", ...args], { cwd, timeoutMs: 300_000 });

function writeJson(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

beforeAll(async () => {
  release = await installRelease();
  // A fresh folder per run inside the installed project: npx and plugin resolution find node_modules walking up.
  work = join(release.project, `work-${process.pid}-${Date.now()}`);
  mkdirSync(work);
}, 1_500_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (release) {
    const total = Date.now() - started;
    console.log(
      `release check: pack ${release.timings.packMs} ms, npm install ${release.timings.installMs} ms, total ${total} ms (project ${release.project})`,
    );
  }
});

describe("the packed release installed with npm", () => {
  it("installs one copy of @skillrig/core that every plugin package shares, and the skillrig bin", () => {
    const modules = join(release.project, "node_modules");
    for (const name of release.tarballs.keys()) expect(existsSync(join(modules, name, "package.json")), name).toBe(true);
    for (const plugin of ["engine-gemini", "deliverable-function", "skills", "oracle"]) {
      const manifest = JSON.parse(readFileSync(join(modules, "@skillrig", plugin, "package.json"), "utf8"));
      expect(manifest.peerDependencies?.["@skillrig/core"], plugin).toMatch(/^\^\d+\.\d+\.\d+$/);
      expect(manifest.dependencies?.["@skillrig/core"], plugin).toBeUndefined();
      expect(existsSync(join(modules, "@skillrig", plugin, "node_modules/@skillrig/core")), plugin).toBe(false);
    }
    expect(existsSync(join(modules, ".bin/skillrig"))).toBe(true);
  });

  it("ships the schemas users write against, at the paths their package exports name", () => {
    const modules = join(release.project, "node_modules");
    for (const [pkg, subpath] of [
      ["@skillrig/core", "./config-schema.json"],
      ["@skillrig/cli", "./config-schema.json"],
      ["@skillrig/oracle", "./task.schema.json"],
      ["@skillrig/skills", "./runner-schema.json"],
    ] as const) {
      const manifest = JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8"));
      const schema = JSON.parse(readFileSync(join(modules, pkg, manifest.exports[subpath]), "utf8"));
      expect(schema.$schema, `${pkg}${subpath.slice(1)}`).toContain("json-schema.org");
    }
  });

  it("init scaffolds a project; its task passes; its skill runs with the gemini engine named by package", async () => {
    const app = join(work, "app");
    mkdirSync(app);
    const init = await skillrig(app, "init");
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("npx skillrig test tasks/add-numbers/task.json");
    const config = JSON.parse(readFileSync(join(app, "skillrig.config.json"), "utf8"));
    expect(config.$schema).toBe("../../node_modules/@skillrig/cli/config.schema.json");
    expect(existsSync(join(app, config.$schema))).toBe(true);

    const test = await skillrig(app, "test", "tasks/add-numbers/task.json", "--deliverable", "tasks/add-numbers/solution.py", "--json");
    expect(test.code, test.stderr).toBe(0);
    expect(JSON.parse(test.stdout).summary).toMatchObject({ total: 3, passed: 3 });

    // What init says to do for an engine, offline: the plugin by package name, the skill's mock scenario.
    writeJson(join(app, "skillrig.config.json"), {
      ...config,
      plugins: [["@skillrig/engine-gemini", { approval_mode: "yolo", mock_scenario: "./skills/line-count/mock-model.scenario.json" }]],
    });
    const job = await skillrig(app, "run", "line-count", "--engine", "gemini", "--file", "text=samples/notes.txt", "--json");
    expect(job.code, job.stdout + job.stderr).toBe(0);
    const result = JSON.parse(job.stdout);
    expect(result.status).toBe("succeeded");
    expect(result.output).toEqual({ lines: 3, words: 21, longest_line: "This file is the example input of the line-count skill." });
  }, 600_000);

  it("solve: the gemini engine writes a deliverable that the oracle grades on hidden tests", async () => {
    const dir = join(work, "solve");
    mkdirSync(dir);
    cpSync(join(REPO, "examples/solve-run-length/task.json"), join(dir, "task.json"));
    cpSync(join(REPO, "examples/solve-run-length/reference"), join(dir, "reference"), { recursive: true });
    cpSync(join(REPO, "examples/solve-run-length/scenarios/correct.json"), join(dir, "agent.scenario.json"));
    writeJson(join(dir, "skillrig.config.json"), {
      plugins: [["@skillrig/engine-gemini", { mock_scenario: "./agent.scenario.json" }]],
      solve: { engines: ["gemini"], attempts: 1 },
    });
    const solved = await skillrig(dir, "solve", "task.json", "--json");
    expect(solved.code, solved.stdout + solved.stderr).toBe(0);
    expect(JSON.parse(solved.stdout).summary).toEqual({ tasks: 1, attempts: 1, passed: 1, not_passed: 0 });
  }, 600_000);

  it("serve: starts, answers /healthz and lists the project's skills, stops on SIGTERM", async () => {
    const app = join(work, "serve-app");
    mkdirSync(app);
    expect((await skillrig(app, "init", "--json")).code).toBe(0);
    // The bin npx runs, started directly: npx does not pass SIGTERM on to the command, and stopping is under test.
    const server = await start(join(release.project, "node_modules/.bin/skillrig"), ["serve", "--port", "0", "--json"], {
      cwd: app,
      env: userEnv(),
      ready: /"url":\s*"(http:\/\/127\.0\.0\.1:\d+)"/,
      timeoutMs: 180_000,
    });
    try {
      const url = server.match[1];
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      const skills = (await (await fetch(`${url}/v1/skills`)).json()) as { skills: { id: string }[] };
      expect(skills.skills.map((s) => s.id)).toEqual(["line-count"]);
    } finally {
      const stopped = await server.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
    }
  }, 300_000);
});

describe("a plugin package with its own copy of @skillrig/core", () => {
  let plugin: string;

  beforeAll(async () => {
    // A team's plugin, developed and installed on its own: @skillrig/core is a regular dependency here, so the
    // plugin loads its copy, not the project's.
    plugin = join(work, "acme-engine");
    writeJson(join(plugin, "package.json"), {
      name: "@acme/skillrig-engine-acme",
      version: "1.0.0",
      type: "module",
      main: "index.js",
      dependencies: { "@skillrig/core": `file:${release.tarballs.get("@skillrig/core")}` },
    });
    writeFileSync(
      join(plugin, "index.js"),
      `import { definePlugin, SkillrigError } from "@skillrig/core";

export default definePlugin((options = {}) => {
  if (options.binary) {
    throw new SkillrigError("engine_not_found", \`the acme CLI "\${options.binary}" is not installed\`, {
      field: "binary",
      hint: "npm i -g acme-cli",
    });
  }
  return {
    name: "@acme/skillrig-engine-acme",
    apply(runner) {
      runner.hooks.job.execute.for("acme").tapPromise(this.name, async () => {
        throw new SkillrigError("engine_auth_failed", "acme rejected the API key", { field: "api_key", hint: "set ACME_API_KEY" });
      });
    },
  };
});
`,
    );
    const install = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: plugin,
      timeoutMs: 600_000,
    });
    expect(install.code, install.stderr).toBe(0);
    expect(realpathSync(join(plugin, "node_modules/@skillrig/core"))).not.toBe(
      realpathSync(join(release.project, "node_modules/@skillrig/core")),
    );
  }, 900_000);

  it("an error it throws while taking its options is reported with its own code, not as unhandled (exit 2)", async () => {
    const dir = join(work, "acme-setup");
    writeJson(join(dir, "skillrig.config.json"), { plugins: [["../acme-engine/index.js", { binary: "acme-cli" }]] });
    const r = await skillrig(dir, "plugins", "--json");
    expect(r.code, r.stderr).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error).toMatchObject({ code: "engine_not_found", field: "binary", hint: "npm i -g acme-cli" });
    expect(error.message).toContain('the acme CLI "acme-cli" is not installed');
  }, 600_000);

  it("an error it throws while running a job is the job's error, with its code (exit 1)", async () => {
    const dir = join(work, "acme-run");
    expect((await skillrig(join(work), "init", "acme-run", "--json")).code).toBe(0);
    const runnerFile = join(dir, "skills/line-count/assets/runner.json");
    writeJson(runnerFile, { ...JSON.parse(readFileSync(runnerFile, "utf8")), engines: ["acme"] });
    writeJson(join(dir, "skillrig.config.json"), { plugins: ["../acme-engine/index.js"], skills: { roots: ["skills"] } });
    const r = await skillrig(dir, "run", "line-count", "--engine", "acme", "--file", "text=samples/notes.txt", "--json");
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result.status).toBe("failed");
    expect(result.error).toMatchObject({ code: "engine_auth_failed", message: "acme rejected the API key", field: "api_key" });
  }, 600_000);
});
