/**
 * The kits' README examples, tested as written: every ```ts block of packages/engine-kit/README.md and
 * packages/deliverable-kit/README.md that names its file (`// @acme/<package>/<path>`) is written into that package,
 * the packages are linked into a project (as `npm i -D ../x` links them) and run by the real `skillrig`: the engine
 * runs a skill job with a tiny CLI, the deliverable types grade tasks, and a test file among the blocks runs with
 * vitest. A block that cannot run alone says `// fragment:` on its first line, and the list of those is pinned here.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, runNode, skillrig } from "./processes.js";

const READMES = ["packages/engine-kit/README.md", "packages/deliverable-kit/README.md"];

interface Block {
  readme: string;
  header: string;
  code: string;
}

function tsBlocks(readme: string): Block[] {
  const text = readFileSync(join(REPO, readme), "utf8");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => ({ readme, header: m[1]!.split("\n")[0]!, code: m[1]! }));
}

function write(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text, { mode });
}

/** `skillrig test` of a task of the plugin's type with `tests`, against an entry file holding `deliverable`: [case, status]. */
async function grade(plugin: string, task: { deliverable_type: string; entrypoint: string }, tests: unknown[], deliverable: string) {
  const folder = join(project, task.deliverable_type);
  write(join(project, "skillrig.config.json"), JSON.stringify({ plugins: [plugin] }));
  write(join(folder, "task.json"), JSON.stringify({ contract_version: "1.0", task_id: "t", ...task, tests }));
  write(join(folder, "answer", task.entrypoint), deliverable);
  const r = await skillrig(["test", join(folder, "task.json"), "--deliverable", join(folder, "answer"), "--json"], project);
  return (JSON.parse(r.stdout).cases as { name: string; status: string }[]).map((c) => [c.name, c.status]);
}

const blocks = READMES.flatMap(tsBlocks);
const FILE_HEADER = /^\/\/ (@acme\/[a-z0-9-]+)\/([\w./-]+\.ts)$/;
let project: string;
let packagesUsed: string[];

beforeAll(() => {
  project = join(mkdtempSync(join(tmpdir(), "skillrig-kit-readmes-")), "project");
  for (const name of ["core", "engine-kit", "deliverable-kit"]) {
    mkdirSync(join(project, "node_modules/@skillrig"), { recursive: true });
    symlinkSync(join(REPO, "packages", name), join(project, "node_modules/@skillrig", name));
  }
  symlinkSync(join(REPO, "node_modules/vitest"), join(project, "node_modules/vitest"));
  const files = blocks.flatMap((block) => {
    const named = FILE_HEADER.exec(block.header);
    return named ? [{ pkg: named[1]!, path: named[2]!, code: block.code }] : [];
  });
  packagesUsed = [...new Set(files.map((f) => f.pkg))];
  for (const pkg of packagesUsed) {
    const folder = join(project, "packages", pkg.split("/")[1]!);
    write(join(folder, "package.json"), JSON.stringify({ name: pkg, version: "0.0.1", type: "module", exports: "./src/index.ts" }));
    mkdirSync(join(project, "node_modules/@acme"), { recursive: true });
    symlinkSync(folder, join(project, "node_modules", pkg));
  }
  for (const { pkg, path, code } of files) write(join(project, "packages", pkg.split("/")[1]!, path), code);
});

describe("the kits' README examples", () => {
  it("every ts block names its file, or says it is a fragment (and these are the only fragments)", async () => {
    const other = blocks.filter((b) => !FILE_HEADER.test(b.header) && !b.header.startsWith("// fragment:"));
    expect(other.map((b) => `${b.readme}: ${b.header}`)).toEqual([]);
    expect(blocks.filter((b) => b.header.startsWith("// fragment:")).map((b) => b.readme)).toEqual([
      "packages/engine-kit/README.md",
      "packages/engine-kit/README.md",
    ]);
    expect(packagesUsed.sort()).toEqual([
      "@acme/skillrig-deliverable-lookup",
      "@acme/skillrig-deliverable-node-cli",
      "@acme/skillrig-engine-echo",
    ]);
  });

  it("the engine example runs a skill job with its CLI, needing no key, with its own option", async () => {
    const cli = join(project, "tools/echo-cli");
    // A tiny CLI with the example's stream: it says the job's "name" input back (upper case with --loud).
    write(
      cli,
      `#!/usr/bin/env node
if (process.argv.includes("--version")) { console.log("echo-cli 1.0.0"); process.exit(0); }
const name = /^- name: (.*)$/m.exec(process.argv.at(-1) ?? "")?.[1] ?? "";
const said = process.argv.includes("--loud") ? name.toUpperCase() : name;
console.log(JSON.stringify({ type: "message", text: JSON.stringify({ said }) }));
console.log(JSON.stringify({ type: "done" }));
`,
      0o755,
    );
    chmodSync(dirname(cli), 0o755);
    write(
      join(project, "skills/say-name/SKILL.md"),
      '---\nname: say-name\ndescription: Says a name back.\n---\n\nAnswer with {"said": "{{ input.name }}"}.\n',
    );
    write(
      join(project, "skills/say-name/assets/runner.json"),
      JSON.stringify({
        id: "say-name",
        name: "Say a name",
        version: "1.0.0",
        execution_modes: ["auto"],
        schemas: { input: "assets/input.schema.json", output: "assets/output.schema.json" },
      }),
    );
    write(
      join(project, "skills/say-name/assets/input.schema.json"),
      JSON.stringify({ type: "object", properties: { name: { type: "string", "x-input-source": "inline" } }, required: ["name"] }),
    );
    write(
      join(project, "skills/say-name/assets/output.schema.json"),
      JSON.stringify({ type: "object", properties: { said: { type: "string" } }, required: ["said"], additionalProperties: false }),
    );
    write(
      join(project, "skillrig.config.json"),
      JSON.stringify({ plugins: [["@acme/skillrig-engine-echo", { binary: cli, loud: true }]], skills: { roots: ["skills"] } }),
    );

    const listed = await skillrig(["plugins", "--json"], project);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).plugins[0]).toMatchObject({
      name: "@acme/skillrig-engine-echo",
      source: { kind: "linked" },
      claims: ["engine:echo"],
    });

    const job = await skillrig(["run", "say-name", "--engine", "echo", "--input", "name=Ada", "--json"], project);
    expect(job.code, job.stdout + job.stderr).toBe(0);
    const result = JSON.parse(job.stdout);
    expect(result).toMatchObject({ status: "succeeded", output: { said: "ADA" }, engine_version: "1.0.0" });
  }, 600_000);

  it("the engine's replay test block passes with vitest", async () => {
    const folder = join(project, "packages/skillrig-engine-echo");
    const r = await runNode([join(REPO, "node_modules/vitest/vitest.mjs"), "run", "--root", folder], folder);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 passed/);
  }, 600_000);

  it("the process deliverable example grades a Node CLI task", async () => {
    const statuses = await grade(
      "@acme/skillrig-deliverable-node-cli",
      { deliverable_type: "node-cli", entrypoint: "upper.js" },
      [
        { name: "shouts", input: { argv: ["hi", "there"] }, expected: { stdout: "HI THERE" } },
        { name: "wrong", input: { argv: ["x"] }, expected: { stdout: "y" } },
      ],
      'console.log(process.argv.slice(2).join(" ").toUpperCase());\n',
    );
    expect(statuses).toEqual([
      ["shouts", "passed"],
      ["wrong", "failed"],
    ]);
  }, 600_000);

  it("the defineDeliverable example grades a lookup table, and refuses a case that breaks its input rule", async () => {
    const statuses = await grade(
      "@acme/skillrig-deliverable-lookup",
      { deliverable_type: "lookup-table", entrypoint: "table.json" },
      [
        { name: "france", input: "France", expected: "Paris" },
        { name: "peru", input: "Peru", expected: "Lima" },
        { name: "not a key", input: 7, expected: "x" },
      ],
      JSON.stringify({ France: "Paris", Peru: "Cusco" }),
    );
    expect(statuses).toEqual([
      ["france", "passed"],
      ["peru", "failed"],
      ["not a key", "invalid_test_format"],
    ]);
  }, 600_000);
});
