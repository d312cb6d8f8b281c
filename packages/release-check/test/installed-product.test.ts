/**
 * skillrig as a team releases it and a user installs it. `pnpm release:local`, the command the README gives, is
 * started once: it publishes every public package with changesets to a Verdaccio on loopback and serves it; every
 * check here installs from that one registry. In an empty folder whose `.npmrc` points only `@skillrig` at it, the
 * README's "Install in your project" lines run word for word (read from README.md here), and its first commands:
 * `init`, `test`, a skill run with the gemini engine (the real Gemini CLI against @skillrig/mock-model's loopback
 * server), `solve`, `serve` once the server is added, a plugin package with its own copy of @skillrig/core whose
 * coded errors must keep their codes, and a plugin scaffolded, published and installed. Then the same product on
 * Node 22 and Node 24, side by side, and last Ctrl-C, which must stop the registry.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, start, userEnv } from "../src/processes.js";
import { type NodeRelease, nodeRelease } from "./support/node-versions.js";
import { install, newProject, publishFolder, type Registry, registryAt, registryManifest } from "./support/registry.js";
import { REPO, type RunningRelease, startReleaseLocal } from "./support/release.js";
import { checkServerInstall, describeServerInstall, type ServerInstall } from "./support/server-install.js";

// `@skillrig/server` installs with no native build (SQLite through `node:sqlite`; better-sqlite3 an optional peer for
// Node 20 only): the serve round trip from the registry runs on Node 22 and 24 (native modules cannot be built for
// those here: `~/.npmrc` sets `nodedir`). On Node 20 the server is covered by packages/server's own tests (both
// drivers), which spares this file a better-sqlite3 compiled from source (minutes: once its biggest cost).

const ROOT = join(tmpdir(), "skillrig-registry-check");
const started = Date.now();
const figures: string[] = [];
let registry: Registry;
let release: RunningRelease;
let work: string;
let app: string;
/** Node 22 and 24, fetched while the release publishes. */
let newerNodes: Promise<NodeRelease[]>;
/** The Node versions the installed product ran on, and what ran there, printed at the end. */
const ranOn: string[] = [`Node ${process.version}: every check`];

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

const [firstBlock, engineBlock, serverBlock, sqliteDriverBlock] = readmeInstallBlocks();

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
  newerNodes = Promise.all([nodeRelease(22), nodeRelease(24)]);
  newerNodes.catch(() => {}); // awaited (and reported) by the Node 22/24 tests
  const t0 = Date.now();
  release = await startReleaseLocal();
  figures.push(`pnpm release:local until serving ${Date.now() - t0} ms (${release.timings.join(", ")})`);
  registry = await registryAt(release.url, join(work, "publisher"));
  // Named as docs/plugin-api.md's plugin loop names the project it starts from (that loop runs here, below).
  app = newProject(registry, join(work, "my-project"));
}, 1_800_000);

afterAll(async () => {
  // Normally stopped by the last test (Ctrl-C); this is for a run that failed before it.
  await release?.process.stop("SIGKILL");
  // Asynchronous: the npm installs and the Node 22/24 copies are a large tree, and removing it synchronously held
  // this worker's event loop 85 s on a loaded machine (past vitest's 60 s RPC timeout; docs/ci.md).
  if (work) await rm(work, { recursive: true, force: true });
  console.log(`release check ran on: ${ranOn.join("; ")}`);
  console.log(`release check: ${figures.join("; ")}; total ${Date.now() - started} ms`);
});

describe("the README's install line against the team's registry", () => {
  it("the README shows the install line with its first commands, the engine line and the server line", () => {
    expect(firstBlock?.[0]).toMatch(/^npm i -D @skillrig\/cli\b/);
    expect(firstBlock?.slice(1).every((line) => line.startsWith("npx skillrig "))).toBe(true);
    expect(engineBlock?.[0]).toMatch(/^npm i -D @skillrig\/engine-gemini /);
    expect(serverBlock).toEqual(["npm i -D @skillrig/server"]);
    expect(sqliteDriverBlock).toEqual(["npm i -D better-sqlite3@^12"]);
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

/** The plugin scaffolded and published below; the Node 22 and 24 runs install it too. */
const pkg = "@acme/skillrig-engine-hello";
let scaffold: string;

/** The sh block under "## Writing a plugin" in docs/plugin-api.md, as its lines without their trailing comments. */
function docLoop(): string[] {
  const doc = readFileSync(join(REPO, "docs/plugin-api.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Writing a plugin"));
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");
}

describe("docs/plugin-api.md's plugin loop, verbatim, against the team's registry", () => {
  let userconfig: string;
  /** Runs one line as a user's shell would, in `cwd`; returns where the line left the shell (its `cd`). */
  async function shellLine(cwd: string, line: string): Promise<{ cwd: string; output: string }> {
    // The line's own status is the shell's: an `a && b` that fails must fail the step, not the echo after it.
    const r = await run("sh", ["-c", `${line}\nstatus=$?\necho "__cwd=$PWD"\nexit $status`], {
      cwd,
      env: userEnv({ npm_config_userconfig: userconfig, npm_config_prefer_offline: "true" }),
      timeoutMs: 900_000,
    });
    const output = `${r.stdout}\n${r.stderr}`;
    expect(r.code, `${line} (in ${cwd})\n${output}`).toBe(0);
    return { cwd: /__cwd=(.*)$/m.exec(r.stdout)?.[1] ?? cwd, output };
  }

  it("the doc shows the loop from the project: npx --no, init --plugin, install and test, link, plugins, publish", () => {
    const lines = docLoop();
    expect(lines[0]).toMatch(/^cd my-project && npx --no skillrig init --plugin engine @acme\/skillrig-engine-hello --dir \.\.$/);
    expect(lines.some((line) => /(^|&& )npx skillrig /.test(line))).toBe(false);
    expect(lines.at(-1)).toMatch(/npm publish$/);
  });

  it("runs line for line: the scaffold installs @skillrig/* from the registry, builds, tests, links, loads and publishes", async () => {
    // The user's npm config as a team sets it: its own scope on its registry, with the token to publish there.
    userconfig = join(work, "user.npmrc");
    writeFileSync(
      userconfig,
      `@acme:registry=${registry.url}\n${registry.url.replace(/^http:/, "")}:_authToken=${/_authToken=(.*)$/m.exec(readFileSync(registry.userconfig, "utf8"))?.[1]}\n`,
    );
    let cwd = work;
    for (const line of docLoop()) {
      if (line.startsWith("npx --no skillrig plugins")) {
        // The doc's comment on this line: the plugin added to the config's plugins first.
        const configFile = join(cwd, "skillrig.config.json");
        const config = JSON.parse(readFileSync(configFile, "utf8"));
        writeFileSync(configFile, `${JSON.stringify({ ...config, plugins: [pkg] }, null, 2)}\n`);
      }
      const done = await shellLine(cwd, line);
      if (line.includes("init --plugin")) {
        const npmrc = readFileSync(join(work, "skillrig-engine-hello", ".npmrc"), "utf8");
        expect(npmrc).toContain(`@skillrig:registry=${registry.url}`);
        expect(npmrc).not.toMatch(/_authToken/);
      }
      if (line.startsWith("npx --no skillrig plugins")) {
        expect(done.output).toContain(pkg);
        expect(done.output).toMatch(/linked/);
      }
      cwd = done.cwd;
    }
    scaffold = join(work, "skillrig-engine-hello");
    const published = await registryManifest(registry, pkg);
    expect(Object.keys(published?.versions ?? {})).toEqual(["0.1.0"]);
  }, 2_400_000);

  it("installs from the registry into another project beside the CLI, and runs a skill job there", async () => {
    const other = newProject(registry, join(work, "other"), ["@skillrig", "@acme"]);
    const installed = await install(other, `npm i -D @skillrig/cli ${pkg}`);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    // The published package: the built code and the stand-in CLI, no sources or tests; core is the project's one copy.
    const published = join(other, "node_modules", pkg);
    expect(existsSync(join(published, "dist/index.js"))).toBe(true);
    expect(existsSync(join(published, "src"))).toBe(false);
    expect(existsSync(join(published, "node_modules/@skillrig/core"))).toBe(false);
    // engine-kit brings neither the loopback model server nor a sandbox of its own (the project's is the CLI's).
    expect(existsSync(join(other, "node_modules/@skillrig/mock-model"))).toBe(false);
    expect(existsSync(join(other, "node_modules/@skillrig/engine-kit/node_modules/@skillrig/sandbox"))).toBe(false);

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

  it("the linked plugin without its build: refused as not built, with the command that builds it", async () => {
    // A copy of the linked plugin, linked in its place (the published one and the Node 22/24 runs are not touched).
    const unbuilt = join(work, "skillrig-engine-hello-unbuilt");
    cpSync(scaffold, unbuilt, { recursive: true, filter: (src) => !src.startsWith(join(scaffold, "dist")) });
    const project = join(work, "unbuilt-project");
    mkdirSync(join(project, "node_modules/@acme"), { recursive: true });
    symlinkSync(unbuilt, join(project, "node_modules", pkg));
    writeJson(join(project, "skillrig.config.json"), { plugins: [pkg] });
    // The CLI installed in the loop's project, run in this one (which has no CLI of its own).
    const r = await run(join(app, "node_modules/.bin/skillrig"), ["plugins", "--json"], { cwd: project, timeoutMs: 300_000 });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe("plugin_not_found");
    expect(error.message).toContain("has not been built");
    expect(error.message).not.toContain("Cannot find module");
    expect(error.hint).toMatch(new RegExp(`^build it: cd ${unbuilt.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} && `));
  }, 300_000);
});

/** `npx skillrig ...` on another Node: its folder first on the PATH, so npx and the CLI's `#!/usr/bin/env node` run on it. */
const skillrigOn = (node: NodeRelease, cwd: string, ...args: string[]) =>
  run("npx", ["--no", "skillrig", ...args], { cwd, env: userEnv({ PATH: `${node.binDir}:${process.env.PATH}` }), timeoutMs: 300_000 });

/**
 * The smoke on one Node release: the CLI installed from the registry with that Node's npm, `init`, `test`, an
 * offline `run` (the plugin published above: its stand-in CLI needs no model), and `serve` when the server needs
 * no native build.
 */
async function smoke(node: NodeRelease): Promise<string> {
  const onNode = { PATH: `${node.binDir}:${process.env.PATH}` };
  const project = newProject(registry, join(work, `node-${node.major}`), ["@skillrig", "@acme"]);
  const which = await run("sh", ["-c", "node --version && npm --version"], { cwd: project, env: userEnv(onNode) });
  expect(which.stdout.split("\n")[0], "node on the PATH of the smoke").toBe(node.version);

  const installed = await install(project, firstBlock![0]!, onNode);
  expect(installed.code, `${node.version}: ${firstBlock![0]}\n${installed.stdout}\n${installed.stderr}`).toBe(0);
  expect(installed.stdout + installed.stderr, `${node.version}: EBADENGINE for a skillrig package`).not.toMatch(
    /EBADENGINE[^\n]*@skillrig/,
  );
  const init = await skillrigOn(node, project, "init", "--json");
  expect(init.code, `${node.version}: init\n${init.stdout}\n${init.stderr}`).toBe(0);
  const test = await skillrigOn(
    node,
    project,
    "test",
    "tasks/add-numbers/task.json",
    "--deliverable",
    "tasks/add-numbers/solution.py",
    "--json",
  );
  expect(test.code, `${node.version}: test\n${test.stdout}\n${test.stderr}`).toBe(0);
  expect(JSON.parse(test.stdout).summary).toMatchObject({ total: 3, passed: 3 });

  const plugin = await install(project, `npm i -D ${pkg}`, onNode);
  expect(plugin.code, `${node.version}: npm i -D ${pkg}\n${plugin.stdout}\n${plugin.stderr}`).toBe(0);
  cpSync(join(scaffold, "test/fixtures/skills"), join(project, "offline-skills"), { recursive: true });
  writeJson(join(project, "skillrig.config.json"), { plugins: [pkg], skills: { roots: ["offline-skills"] } });
  const job = await skillrigOn(node, project, "run", "echo-inputs", "--engine", "hello", "--input", "name=Ada", "--json");
  expect(job.code, `${node.version}: run\n${job.stdout}\n${job.stderr}`).toBe(0);
  expect(JSON.parse(job.stdout)).toMatchObject({ status: "succeeded", output: { name: "Ada" } });
  const server = await install(project, serverBlock![0]!, onNode);
  expect(server.code, `${node.version}: ${serverBlock![0]}\n${server.stdout}\n${server.stderr}`).toBe(0);
  const serving = await start(join(project, "node_modules/.bin/skillrig"), ["serve", "--port", "0", "--json"], {
    cwd: project,
    env: userEnv(onNode),
    ready: /"url":\s*"(http:\/\/127\.0\.0\.1:\d+)"/,
    timeoutMs: 180_000,
  });
  try {
    const url = serving.match[1];
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const skills = (await (await fetch(`${url}/v1/skills`)).json()) as { skills: { id: string }[] };
    expect(skills.skills.map((s) => s.id)).toEqual(["echo-inputs"]);
  } finally {
    const stopped = await serving.stop();
    expect(stopped.code, `${node.version}: serve stopped\n${stopped.stderr}`).toBe(0);
  }
  return "install, init, test, an offline run, serve";
}

describe("the installed product on Node 22 and Node 24", () => {
  it("the published server brings no native build: better-sqlite3 is an optional peer, never installed unasked", async () => {
    const server = await registryManifest(registry, "@skillrig/server");
    const manifest = server?.versions[release.versions.get("@skillrig/server")!] as Record<string, Record<string, string> | undefined>;
    // npm installs (and so compiles) a dependency or an optional dependency; an optional peer only when asked for.
    const installedBy = ["dependencies", "optionalDependencies"].filter((field) => manifest[field]?.["better-sqlite3"] !== undefined);
    expect(installedBy, "npm would install better-sqlite3 (a native build) with @skillrig/server").toEqual([]);
    expect(manifest.peerDependencies?.["better-sqlite3"]).toBeDefined();
  });

  for (const [index, major] of [22, 24].entries()) {
    it.concurrent(
      `Node ${major}: install from the registry, init, test, an offline run, serve`,
      async () => {
        const node = (await newerNodes)[index]!;
        const t0 = Date.now();
        const what = await smoke(node);
        ranOn.push(`Node ${node.version}: ${what}`);
        figures.push(`Node ${node.version} smoke ${Date.now() - t0} ms`);
      },
      1_200_000,
    );
  }
});

// The server line's weight on Node 22 (issue 42's light server): from the same registry, nothing native for SQLite.
describe("the server line on Node 22", () => {
  let installed: ServerInstall;

  beforeAll(async () => {
    const node22 = (await newerNodes)[0]!;
    installed = await checkServerInstall(registry, join(work, "project-server-node22"), join(node22.binDir, "node"));
    figures.push(describeServerInstall(installed));
  }, 1_500_000);

  it("installs nothing native for SQLite and compiles nothing: no better-sqlite3, no install-script notice for it", () => {
    expect(installed.node).toMatch(/^v22\./);
    expect(installed.nativeFiles.filter((f) => /sqlite/i.test(f))).toEqual([]);
    expect(installed.nativeFiles.filter((f) => /build\/Release\//.test(f))).toEqual([]);
    expect(installed.output).not.toContain("better-sqlite3");
    expect(installed.output).not.toContain("EBADENGINE");
  });

  it("the installed skillrig serve runs on node:sqlite and prints no experimental warning", () => {
    expect(installed.sqliteDriver).toBe("node:sqlite");
    expect(installed.serveOutput).not.toContain("ExperimentalWarning");
  });
});

describe("Ctrl-C", () => {
  it("stops the registry that pnpm release:local serves, and its folder goes", async () => {
    const folder = release.process.output().match(/storage in (\S+)/)?.[1];
    expect(folder && existsSync(folder), "the release's folder while it serves").toBe(true);
    const stopped = await release.process.stop("SIGINT");
    expect(stopped.stdout, stopped.stderr).toMatch(/^release: stopped$/m);
    expect(existsSync(folder!)).toBe(false);
    await expect(fetch(release.url)).rejects.toThrow();
  }, 120_000);
});
