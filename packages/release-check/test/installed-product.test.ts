/**
 * skillrig as a team releases it and a user installs it. Every public package is published with changesets to a
 * Verdaccio on loopback (support/release.ts, support/registry.ts); then, in an empty folder whose `.npmrc` points
 * only `@skillrig` at that registry, the README's "Install in your project" lines run word for word (read from
 * README.md here), and its first commands: `init`, `test`, a skill run with the gemini engine (the real Gemini CLI
 * against @skillrig/mock-model's loopback server), `solve`, `serve` once the server is added, and a plugin package
 * with its own copy of @skillrig/core whose coded errors must keep their codes.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, start, userEnv } from "./support/processes.js";
import { install, newProject, publishFolder, type Registry, startRegistry } from "./support/registry.js";
import { type PublishedRelease, publishRelease, REPO } from "./support/release.js";

const ROOT = join(tmpdir(), "skillrig-registry-check");
const started = Date.now();
const figures: string[] = [];
let registry: Registry;
let release: PublishedRelease;
let work: string;
let app: string;

/** `npx skillrig ...` as the README says; `--no` so a missing local install fails instead of fetching a package named skillrig. */
const skillrig = (cwd: string, ...args: string[]) => run("npx", ["--no", "skillrig", ...args], { cwd, timeoutMs: 300_000 });

function writeJson(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The sh blocks of README.md's "Install in your project" section, each as its lines. */
function readmeInstallBlocks(): string[][] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Install in your project"));
  const body = section.slice(0, section.indexOf("\n## ", 3));
  return [...body.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.split("\n").filter((line) => line.trim() !== ""));
}

const [firstBlock, engineBlock, serverBlock] = readmeInstallBlocks();

/** Runs an install line of the README in `project`, recording its time and the size of node_modules after it. */
async function installLine(project: string, line: string, label: string): Promise<string> {
  const t0 = Date.now();
  const r = await install(project, line);
  expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
  const kb = Number(execFileSync("du", ["-sk", join(project, "node_modules")], { encoding: "utf8" }).split("\t")[0]);
  figures.push(`${label} "${line}": ${Date.now() - t0} ms, node_modules ${(kb / 1024).toFixed(1)} MB`);
  return r.stdout + r.stderr;
}

beforeAll(async () => {
  work = join(ROOT, `run-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  registry = await startRegistry(join(work, "registry"));
  release = await publishRelease(registry, work);
  figures.push(
    `pnpm install (repository copy) ${release.timings.installMs} ms, changeset version ${release.timings.versionMs} ms, changeset publish ${release.timings.publishMs} ms`,
  );
  app = newProject(registry, join(work, "app"));
}, 1_500_000);

afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`release check: ${figures.join("; ")}; total ${Date.now() - started} ms`);
});

describe("the README's install line against the team's registry", () => {
  it("the README shows the install line with its first commands, the engine line and the server line", () => {
    expect(firstBlock?.[0]).toMatch(/^npm i -D @skillrig\/cli\b/);
    expect(firstBlock?.slice(1).every((line) => line.startsWith("npx skillrig "))).toBe(true);
    expect(engineBlock?.[0]).toMatch(/^npm i -D @skillrig\/engine-gemini /);
    expect(serverBlock).toEqual(["npm i -D @skillrig/server"]);
  });

  it("in an empty folder: the install line, then init and test as written; no SQLite, pty or server", async () => {
    const [line, ...commands] = firstBlock!;
    const output = await installLine(app, line!, "install line");
    expect(output).not.toMatch(/EBADENGINE|install script/i);
    for (const heavy of ["better-sqlite3", "node-pty", "@lydell/node-pty", "keytar", "fastify", "bullmq", "ioredis", "@skillrig/server"]) {
      expect(existsSync(join(app, "node_modules", heavy)), heavy).toBe(false);
    }
    for (const command of commands) {
      const r = await run("sh", ["-c", command], { cwd: app, timeoutMs: 300_000 });
      expect(r.code, `${command}\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (command.startsWith("npx skillrig init")) expect(r.stdout).toContain("npx skillrig test tasks/add-numbers/task.json");
    }
    const config = JSON.parse(readFileSync(join(app, "skillrig.config.json"), "utf8"));
    expect(existsSync(join(app, config.$schema))).toBe(true);
    const test = await skillrig(app, "test", "tasks/add-numbers/task.json", "--deliverable", "tasks/add-numbers/solution.py", "--json");
    expect(test.code, test.stderr).toBe(0);
    expect(JSON.parse(test.stdout).summary).toMatchObject({ total: 3, passed: 3 });
  }, 1_500_000);

  it("serve without the server: a coded error naming what to install (exit 2)", async () => {
    const r = await skillrig(app, "serve", "--port", "0", "--json");
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "plugin_not_found",
      hint: expect.stringContaining("npm i -D @skillrig/server"),
    });
  }, 300_000);

  it("the engine line; the scaffolded skill runs with the gemini engine named by package", async () => {
    await installLine(app, engineBlock![0]!, "engine line");
    const config = JSON.parse(readFileSync(join(app, "skillrig.config.json"), "utf8"));
    // What the README says to do for an engine, offline: the plugin by package name, the skill's mock scenario.
    writeJson(join(app, "skillrig.config.json"), {
      ...config,
      plugins: [["@skillrig/engine-gemini", { approval_mode: "yolo", mock_scenario: "./skills/line-count/mock-model.scenario.json" }]],
    });
    const job = await skillrig(app, "run", "line-count", "--engine", "gemini", "--file", "text=samples/notes.txt", "--json");
    expect(job.code, job.stdout + job.stderr).toBe(0);
    const result = JSON.parse(job.stdout);
    expect(result.status).toBe("succeeded");
    expect(result.output).toEqual({ lines: 3, words: 21, longest_line: "This file is the example input of the line-count skill." });
  }, 1_500_000);

  it("one @skillrig/core that every plugin package names as a satisfied peer; the schemas at their exports", () => {
    const modules = join(app, "node_modules");
    const core = JSON.parse(readFileSync(join(modules, "@skillrig/core/package.json"), "utf8")).version;
    expect(core).toBe(release.versions.get("@skillrig/core"));
    for (const plugin of ["engine-gemini", "engine-kit", "deliverable-function", "skills", "oracle"]) {
      const manifest = JSON.parse(readFileSync(join(modules, "@skillrig", plugin, "package.json"), "utf8"));
      expect(manifest.version, plugin).toBe(release.versions.get(`@skillrig/${plugin}`));
      expect(semver.satisfies(core, manifest.peerDependencies?.["@skillrig/core"]), plugin).toBe(true);
      expect(manifest.dependencies?.["@skillrig/core"], plugin).toBeUndefined();
      expect(existsSync(join(modules, "@skillrig", plugin, "node_modules/@skillrig/core")), plugin).toBe(false);
    }
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

  it("solve: the gemini engine writes a deliverable that the oracle grades on hidden tests", async () => {
    const dir = join(app, "solve");
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
});

describe("serve, with the README's server line", () => {
  let project: string;

  beforeAll(async () => {
    // Kept between runs with its package.json and node_modules, so better-sqlite3, which npm cannot fetch prebuilt
    // here, is compiled once, not every run; skillrig's packages and the lockfiles go, so they come from this registry.
    project = join(ROOT, "serve-project");
    mkdirSync(project, { recursive: true });
    rmSync(join(project, "node_modules/@skillrig"), { recursive: true, force: true });
    rmSync(join(project, "package-lock.json"), { force: true });
    rmSync(join(project, "node_modules/.package-lock.json"), { force: true });
    rmSync(join(project, "app"), { recursive: true, force: true });
    newProject(registry, project);
    await installLine(project, firstBlock![0]!, "serve project (kept node_modules): install line");
    await installLine(project, serverBlock![0]!, "serve project (kept node_modules): server line");
  }, 1_500_000);

  it("starts, answers /healthz and lists the project's skills, stops on SIGTERM", async () => {
    const dir = join(project, "app");
    mkdirSync(dir);
    expect((await skillrig(dir, "init", "--json")).code).toBe(0);
    // The bin npx runs, started directly: npx does not pass SIGTERM on to the command, and stopping is under test.
    const server = await start(join(project, "node_modules/.bin/skillrig"), ["serve", "--port", "0", "--json"], {
      cwd: dir,
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
    // A team's plugin, developed and installed on its own: @skillrig/core (from the registry) is a regular
    // dependency here, so the plugin loads its copy, not the project's.
    plugin = newProject(registry, join(app, "acme-engine"));
    writeJson(join(plugin, "package.json"), {
      name: "@acme/skillrig-engine-acme",
      version: "1.0.0",
      type: "module",
      main: "index.js",
      dependencies: { "@skillrig/core": `^${release.versions.get("@skillrig/core")}` },
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
    const r = await install(plugin, "npm install");
    expect(r.code, r.stderr).toBe(0);
    expect(realpathSync(join(plugin, "node_modules/@skillrig/core"))).not.toBe(realpathSync(join(app, "node_modules/@skillrig/core")));
  }, 900_000);

  it("an error it throws while taking its options is reported with its own code, not as unhandled (exit 2)", async () => {
    const dir = join(app, "acme-setup");
    writeJson(join(dir, "skillrig.config.json"), { plugins: [["../acme-engine/index.js", { binary: "acme-cli" }]] });
    const r = await skillrig(dir, "plugins", "--json");
    expect(r.code, r.stderr).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error).toMatchObject({ code: "engine_not_found", field: "binary", hint: "npm i -g acme-cli" });
    expect(error.message).toContain('the acme CLI "acme-cli" is not installed');
  }, 600_000);

  it("an error it throws while running a job is the job's error, with its code (exit 1)", async () => {
    const dir = join(app, "acme-run");
    expect((await skillrig(app, "init", "acme-run", "--json")).code).toBe(0);
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

describe("a plugin scaffolded by `skillrig init --plugin`, published to the team's registry", () => {
  const pkg = "@acme/skillrig-engine-hello";
  let scaffold: string;

  beforeAll(async () => {
    // The author's loop as docs/plugin-api.md "Writing a plugin" tells it: scaffold with the installed CLI, install,
    // publish (prepublishOnly builds and runs the scaffold's own test, so a failing test stops the publish).
    const created = await skillrig(app, "init", "--plugin", "engine", pkg, "--json");
    expect(created.code, created.stdout + created.stderr).toBe(0);
    scaffold = newProject(registry, JSON.parse(created.stdout).dir);
    const installed = await install(scaffold, "npm install");
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    await publishFolder(registry, scaffold);
  }, 1_200_000);

  it("installs from the registry into another project beside the CLI, and runs a skill job there", async () => {
    const other = newProject(registry, join(work, "other"), ["@skillrig", "@acme"]);
    const installed = await install(other, `npm i -D @skillrig/cli ${pkg}`);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    // The published package: the built code and the stand-in CLI, no sources or tests; core is the project's one copy.
    const published = join(other, "node_modules", pkg);
    expect(existsSync(join(published, "dist/index.js"))).toBe(true);
    expect(existsSync(join(published, "src"))).toBe(false);
    expect(existsSync(join(published, "node_modules/@skillrig/core"))).toBe(false);

    cpSync(join(scaffold, "test/fixtures/skills"), join(other, "skills"), { recursive: true });
    writeJson(join(other, "skillrig.config.json"), { plugins: [pkg], skills: { roots: ["skills"] } });
    const listed = await skillrig(other, "plugins", "--json");
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    const [plugin] = JSON.parse(listed.stdout).plugins;
    expect(plugin).toMatchObject({ name: pkg, source: { kind: "package", package: pkg, version: "0.1.0" }, claims: ["engine:hello"] });
    expect(plugin.source.path).toContain(`node_modules/${pkg}`);
    const job = await skillrig(other, "run", "echo-inputs", "--engine", "hello", "--input", "name=Ada", "--json");
    expect(job.code, job.stdout + job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toMatchObject({ status: "succeeded", output: { name: "Ada" } });
  }, 900_000);
});
