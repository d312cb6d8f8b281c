/**
 * The docs' commands run as written. docs/commands.txt lists every `skillrig` command of README.md's and
 * docs/*.md's sh blocks with the folder it runs in and what to expect (its header says how); this test checks
 * that the list and the docs agree, then runs each entry with the CLI built in this repository on the PATH.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./support/release.js";
import { run, start, userEnv } from "../src/processes.js";

interface Entry {
  line: number;
  cwd: string;
  expect: { kind: "exit"; code: number } | { kind: "serves" } | { kind: "block" } | { kind: "not run"; why: string };
  command: string;
}

/** A command as the docs show it: continuation lines joined, a trailing `# comment` and extra spaces dropped. */
function normalise(command: string): string {
  return command
    .replace(/\s+#\s.*$/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function parseCommandList(text: string): Entry[] {
  const entries: Entry[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = line.match(/^(?<cwd>[^|]+?) \| (?<expect>[^|]+?) \| (?<command>.+)$/);
    if (!match?.groups) throw new Error(`docs/commands.txt line ${index + 1}: not "<folder> | <expect> | <command>": ${line}`);
    const { cwd, expect: what, command } = match.groups as { cwd: string; expect: string; command: string };
    const exit = what.match(/^exit (\d+)$/);
    const notRun = what.match(/^not run: (.+)$/);
    const expectation: Entry["expect"] = exit
      ? { kind: "exit", code: Number(exit[1]) }
      : what === "serves"
        ? { kind: "serves" }
        : what === "block"
          ? { kind: "block" }
          : notRun
            ? { kind: "not run", why: notRun[1] as string }
            : (() => {
                throw new Error(`docs/commands.txt line ${index + 1}: unknown expectation "${what}"`);
              })();
    entries.push({ line: index + 1, cwd, expect: expectation, command: expectation.kind === "block" ? command : normalise(command) });
  });
  return entries;
}

function docFiles(): string[] {
  return [
    "README.md",
    ...readdirSync(join(REPO, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
}

/** The sh code blocks of a markdown file, each with the text before it. */
function shBlocks(markdown: string): { before: string[]; body: string }[] {
  const blocks: { before: string[]; body: string }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash|console)\s*$/.test(lines[i] as string)) continue;
    const end = lines.indexOf("```", i + 1);
    blocks.push({ before: lines.slice(0, i), body: lines.slice(i + 1, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** Every `skillrig` / `npx skillrig` command in the docs' sh blocks, with the file it is in. */
function documentedCommands(): { file: string; command: string }[] {
  return docFiles().flatMap((file) =>
    shBlocks(readFileSync(join(REPO, file), "utf8")).flatMap(({ body }) =>
      body
        .replace(/\\\n\s*/g, " ")
        .split("\n")
        .map(normalise)
        .filter((command) => /^(npx )?skillrig( |$)/.test(command))
        .map((command) => ({ file, command })),
    ),
  );
}

function blockOf(reference: string): string {
  const [file, marker] = reference.split("#", 2) as [string, string];
  const markdown = readFileSync(join(REPO, file), "utf8");
  const block = shBlocks(markdown).find(({ before }) => before.some((line) => line.startsWith(marker)));
  if (!block) throw new Error(`no sh block after a line starting with "${marker}" in ${file}`);
  return block.body;
}

const entries = parseCommandList(readFileSync(join(REPO, "docs/commands.txt"), "utf8"));

// `skillrig` on the PATH as the README's Use section puts it there; the binary must have been built (pnpm test builds).
const PATH_WITH_SKILLRIG = `${join(REPO, "node_modules/.bin")}:${process.env.PATH}`;
const env = () => userEnv({ PATH: PATH_WITH_SKILLRIG });

/** Runs `body` in `cwd` and removes whatever it left there (except run folders in .skillrig/). */
async function inFolder<T>(cwd: string, body: () => Promise<T>): Promise<T> {
  const before = new Set(readdirSync(cwd));
  try {
    return await body();
  } finally {
    for (const name of readdirSync(cwd))
      if (!before.has(name) && name !== ".skillrig") await rm(join(cwd, name), { recursive: true, force: true });
  }
}

async function withServer<T>(cwd: string, body: (url: string) => Promise<T>): Promise<T> {
  const server = await start("skillrig", ["serve", "--port", "0", "--json"], {
    cwd,
    env: env(),
    ready: /"url":\s*"(http:\/\/[^"]+)"/,
    timeoutMs: 120_000,
  });
  try {
    return await body(server.match[1] as string);
  } finally {
    const stopped = await server.stop();
    expect(stopped.code, `skillrig serve in ${cwd} stopped with ${stopped.code}: ${stopped.stderr}`).toBe(0);
  }
}

describe("docs/commands.txt and the docs agree", () => {
  it("lists every skillrig command shown in README.md and docs/*.md", () => {
    const listed = new Set(entries.map((e) => e.command));
    const missing = documentedCommands().filter(({ command }) => !listed.has(command));
    expect(missing, "add these to docs/commands.txt with the folder they run in").toEqual([]);
  });

  it("lists no command that the docs no longer show, and every block it names exists", () => {
    const shown = new Set(documentedCommands().map((c) => c.command));
    const stale = entries.filter((e) => e.expect.kind !== "block" && !shown.has(e.command));
    expect(stale.map((e) => `line ${e.line}: ${e.command}`)).toEqual([]);
    for (const e of entries.filter((x) => x.expect.kind === "block")) expect(blockOf(e.command).length, e.command).toBeGreaterThan(0);
    for (const e of entries) expect(existsSync(join(REPO, e.cwd)), `line ${e.line}: folder ${e.cwd}`).toBe(true);
  });
});

describe("the docs' commands, run as written", () => {
  for (const entry of entries) {
    const { expect: what } = entry;
    if (what.kind === "not run") continue;
    const cwd = join(REPO, entry.cwd);
    const title = `${entry.cwd}$ ${what.kind === "block" ? `the block ${entry.command}` : entry.command}`;

    if (what.kind === "exit") {
      it(title, async () => {
        const r = await inFolder(cwd, () => run("bash", ["-c", entry.command], { cwd, env: env(), timeoutMs: 600_000 }));
        expect(r.code, `docs/commands.txt line ${entry.line}\n${r.stdout}\n${r.stderr}`).toBe(what.code);
      }, 600_000);
    } else if (what.kind === "serves") {
      it(title, async () => {
        const [command, ...args] = entry.command.split(" ") as [string, ...string[]];
        const server = await start(command, args, { cwd, env: env(), ready: /"url":\s*"(http:\/\/[^"]+)"|listening on (http:\/\/\S+)/ });
        try {
          const health = await fetch(`${server.match[1] ?? server.match[2]}/healthz`);
          expect(health.status).toBe(200);
        } finally {
          expect((await server.stop()).code).toBe(0);
        }
      }, 300_000);
    } else {
      it(title, async () => {
        const script = join(mkdtempSync(join(tmpdir(), "skillrig-docs-block-")), "block.sh");
        writeFileSync(script, blockOf(entry.command));
        const r = await inFolder(cwd, () =>
          withServer(cwd, (url) =>
            run("bash", ["-e", script], { cwd, env: userEnv({ PATH: PATH_WITH_SKILLRIG, S: url }), timeoutMs: 600_000 }),
          ),
        );
        expect(r.code, `docs/commands.txt line ${entry.line}\n${r.stdout}\n${r.stderr}`).toBe(0);
        // The session's last answers: the job's result, then its bundle saved as <job id>.zip.
        expect(r.stdout).toContain('"status":"succeeded"');
      }, 600_000);
    }
  }
});
