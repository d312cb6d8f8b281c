/**
 * Reward hacking: deliverables that try to pass without being right, by reaching what the runner holds (the task
 * file, its expected values, files only the runner may read) or by breaking the reader of their output. Each is a
 * real Python script run through the real runner and sandbox, at every isolation level this machine has. Each must
 * end failed / error / output_limit (or be refused before it runs), never leak what it reached for into the report,
 * and leave nothing outside its case touched. rlimits and none grade only when named (and say so in the report);
 * without the opt-in they are refused, which is asserted too.
 */
import "./python-for-uids.js";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { isSkillrigError, Runner, type Task, type TestCase } from "@skillrig/core";
import cliPlugin from "@skillrig/deliverable-cli";
import scriptPlugin from "@skillrig/deliverable-script";
import { compareModesPlugin, JsonReporter, JunitReporter, loadTask, resolveDeliverable, runTask } from "@skillrig/oracle";
import sandboxPlugin, { availableLevels, createSandbox, probeHost, type LevelName } from "@skillrig/sandbox";
import { describe, expect, it } from "vitest";
import { tempDir, writeTree } from "./helpers.js";

/** Reads a deliverable's path (a script task: the oracle's entrypoint rule, which no plugin here replaces). */
const pathRunner = new Runner();

const here = dirname(fileURLToPath(import.meta.url));
const cliBin = resolve(here, "../../cli/dist/bin.js");
const levels = availableLevels()
  .filter((l) => l.available)
  .map((l) => l.level);

/** A runner whose sandbox level is named (the opt-in the weak levels need), as the config would name it. */
function runnerAt(level: LevelName): Runner {
  const runner = new Runner({ config: { sandbox: { level } } });
  return runner.use(compareModesPlugin()).use(scriptPlugin()).use(cliPlugin()).use(sandboxPlugin());
}

/** A file only the runner may read (0600 in a 0700 folder), holding a token that must never reach a report. */
function runnerOnlySecret(): { dir: string; file: string; token: string } {
  const dir = mkdtempSync(join(tmpdir(), "reward-hacking-secret-"));
  chmodSync(dir, 0o700);
  const token = `secret-${randomUUID()}`;
  const file = join(dir, "secret.txt");
  writeFileSync(file, token, { mode: 0o600 });
  return { dir, file, token };
}

/** Every file under `dir` with its content, to show nothing outside the case was touched. */
function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = join(entry.parentPath, entry.name);
    state[full] = entry.isFile() ? readFileSync(full, "utf8") : entry.isDirectory() ? "dir" : "other";
  }
  return state;
}

function scriptTask(tests: TestCase[], limits?: Task["limits"]): Task {
  return {
    contract_version: "1.0",
    task_id: "reward-hacking",
    deliverable_type: "script",
    entrypoint: "main.py",
    tests,
    ...(limits ? { limits } : {}),
  };
}

async function grade(level: LevelName, task: Task, code: string) {
  const dir = writeTree({ "task.json": JSON.stringify(task), "deliverable/main.py": code });
  const loaded = await loadTask(join(dir, "task.json"));
  const deliverable = await resolveDeliverable(pathRunner, join(dir, "deliverable"), loaded.task);
  const report = await runTask(runnerAt(level), { loaded, deliverable, jobs: 2 });
  // Everything the report says about what the code did (its `expected` is the task's own, so it is left out).
  const text = JSON.stringify({ ...report, cases: report.cases.map(({ expected, ...rest }) => rest) });
  return { report, text, case: report.cases[0]! };
}

describe.each(levels)("reward hacking at level %s", (level) => {
  it("an expected output file symlinked to a runner-only file is reported as a symlink, never read", async () => {
    const secret = runnerOnlySecret();
    const before = treeState(secret.dir);
    const { case: verdict, text } = await grade(
      level,
      scriptTask([{ name: "symlink", input: { stdin: secret.file }, expected: { files: { "out.txt": secret.token } } }]),
      "import os, sys\nos.symlink(sys.stdin.read(), 'out.txt')\n",
    );
    expect(verdict.status).toBe("failed");
    expect(verdict.message).toMatch(
      /files\/out\.txt is not a regular file: it is a symlink \(to ".*secret\.txt"\), which is never followed/,
    );
    expect(text).not.toContain(secret.token.slice(7));
    expect(treeState(secret.dir)).toEqual(before);
  });

  it("an expected output file hard-linked to a runner-only file is never read", async () => {
    const secret = runnerOnlySecret();
    const { case: verdict, text } = await grade(
      level,
      scriptTask([{ name: "hard link", input: { stdin: secret.file }, expected: { files: { "out.txt": secret.token } } }]),
      // Where the kernel refuses the link (protected_hardlinks, a path the namespace does not show) the file is missing.
      "import os, sys\ntry:\n    os.link(sys.stdin.read(), 'out.txt')\nexcept OSError as e:\n    print(e)\n",
    );
    expect(verdict.status).toBe("failed");
    expect(verdict.message).toMatch(/files\/out\.txt (is not a regular file: it is a hard link|was not produced)/);
    expect(text).not.toContain(secret.token.slice(7));
  });

  it("a FIFO, a socket or a symlink to /dev/zero as output files end failed at once, never hanging the reader", async () => {
    const code = [
      "import os, socket",
      "os.mkfifo('fifo.txt')",
      "os.symlink('/dev/zero', 'zero.txt')",
      "s = socket.socket(socket.AF_UNIX); s.bind('sock.txt')",
    ].join("\n");
    const { case: verdict } = await grade(
      level,
      scriptTask([{ name: "special", input: {}, expected: { files: { "fifo.txt": "x", "zero.txt": "x", "sock.txt": "x" } } }]),
      code,
    );
    expect(verdict.status).toBe("failed");
    expect(verdict.message).toContain("files/fifo.txt is not a regular file: it is a FIFO (named pipe), which is never opened");
    expect(verdict.message).toContain('files/zero.txt is not a regular file: it is a symlink (to "/dev/zero")');
    expect(verdict.message).toContain("files/sock.txt is not a regular file: it is a socket");
    expect((verdict.actual as { files: Record<string, { not_read: string }> }).files["fifo.txt"]?.not_read).toBe("fifo");
  });

  it("a symlinked folder on an expected file's path is reported as the symlink; nothing behind it is read", async () => {
    const secret = runnerOnlySecret();
    const { case: verdict, text } = await grade(
      level,
      scriptTask([{ name: "folder link", input: { stdin: secret.dir }, expected: { files: { "sub/secret.txt": secret.token } } }]),
      "import os, sys\nos.symlink(sys.stdin.read(), 'sub')\n",
    );
    expect(verdict.status).toBe("failed");
    expect(verdict.message).toMatch(/files\/sub\/secret\.txt is not a regular file: sub on its path is a symlink/);
    expect(text).not.toContain(secret.token.slice(7));
  });

  it("5 000 files in the case folder end output_limit naming the cap", async () => {
    const { case: verdict } = await grade(
      level,
      // A generous wall clock: 5 000 files take a while on a loaded machine, and the cap is what is under test.
      scriptTask([{ name: "many files", input: {}, expected: { stdout: "" }, timeout_ms: 120_000 }]),
      "for i in range(5000):\n    open(f'f{i}.txt', 'w').write('x')\n",
    );
    expect(verdict.status).toBe("output_limit");
    expect(verdict.message).toMatch(/more than 1000 files and folders \(output cap: entries\)/);
  });

  it("a huge output file ends output_limit, never read into the runner", async () => {
    const { case: verdict } = await grade(
      level,
      scriptTask([{ name: "huge", input: {}, expected: { files: { "big.bin": "x" } } }], { file_bytes: 1024 * 1024 } as Task["limits"]),
      // A sparse 8 GiB file: cheap to make, and without RLIMIT_FSIZE (level none) only the read cap stops it.
      "with open('big.bin', 'wb') as f:\n    f.truncate(8 * 1024 ** 3)\n",
    );
    expect(verdict.status).toBe("output_limit");
    expect(verdict.message).toMatch(
      /wrote a file larger than 1 MiB|big\.bin is 8589934592 bytes, more than the 1048576 read from one file/,
    );
  });

  it("a 0700 deliverable folder with a 0600 file (what mktemp -d gives) passes", async () => {
    const folder = mkdtempSync(join(tempDir(), "private-"));
    writeFileSync(join(folder, "main.py"), "print('hello')\n", { mode: 0o600 });
    chmodSync(folder, 0o700);
    const taskDir = writeTree({ "task.json": JSON.stringify(scriptTask([{ name: "private", input: {}, expected: { stdout: "hello" } }])) });
    const loaded = await loadTask(join(taskDir, "task.json"));
    const report = await runTask(runnerAt(level), { loaded, deliverable: await resolveDeliverable(pathRunner, folder, loaded.task) });
    expect(report.cases[0]?.status).toBe("passed");
  });

  it(`${level === "namespaces" ? "does not report" : "reports"} that the hidden tests were reachable`, async () => {
    const { report } = await grade(level, scriptTask([{ name: "ok", input: {}, expected: { stdout: "" } }]), "pass\n");
    expect(report.isolation).toBe(level);
    if (level === "namespaces") expect(report.hidden_tests_reachable).toBeUndefined();
    else {
      expect(report.hidden_tests_reachable).toBe(true);
      expect(report.warnings?.[0]).toMatch(new RegExp(`isolation "${level}" was named by the user: hidden tests were reachable`));
    }
  });
});

describe("the task file never crosses into the sandbox", () => {
  const task = scriptTask([{ name: "c", input: {}, expected: { stdout: "absent" } }]);
  const code = "import os\nprint('present' if os.path.exists(os.path.join(os.path.dirname(__file__), 'task.json')) else 'absent')\n";

  it("refuses a deliverable folder that holds the task file, naming it", async () => {
    const dir = writeTree({ "task.json": JSON.stringify(task), "main.py": code });
    const loaded = await loadTask(join(dir, "task.json"));
    const run = runTask(runnerAt("namespaces"), { loaded, deliverable: await resolveDeliverable(pathRunner, dir, loaded.task) });
    await expect(run).rejects.toThrow(
      new RegExp(`deliverable folder ${dir} would carry the task file into the sandbox: ${dir}/task.json is ${dir}/task.json`),
    );
  });

  it("refuses a deliverable folder holding a symlink or a hard link to the task file", async () => {
    const taskDir = writeTree({ "task.json": JSON.stringify(task) });
    const loaded = await loadTask(join(taskDir, "task.json"));
    for (const [how, make] of [
      ["symlink", (to: string) => symlinkSync(join(taskDir, "task.json"), to)],
      ["hard link", (to: string) => linkSync(join(taskDir, "task.json"), to)],
    ] as const) {
      const dir = writeTree({ "main.py": code, "data/.keep": "" });
      make(join(dir, "data", "tests.json"));
      const error = await runTask(runnerAt("namespaces"), {
        loaded,
        deliverable: await resolveDeliverable(pathRunner, dir, loaded.task),
      }).catch((e) => e);
      expect(isSkillrigError(error)).toBe(true);
      expect(error.code).toBe("usage");
      expect(error.message).toContain(`${dir}/data/tests.json is a ${how} to ${join(taskDir, "task.json")}`);
    }
  });

  it("snapshots a deliverable given as a file alone: the task file beside it stays outside", async () => {
    const dir = writeTree({ "task.json": JSON.stringify(task), "main.py": code });
    const loaded = await loadTask(join(dir, "task.json"));
    const report = await runTask(runnerAt("namespaces"), {
      loaded,
      deliverable: await resolveDeliverable(pathRunner, join(dir, "main.py"), loaded.task),
    });
    expect(report.cases[0]?.status).toBe("passed");
  });

  it("copies symlinks that stay inside the deliverable and leaves out the ones that point outside", async () => {
    const secret = runnerOnlySecret();
    const dir = writeTree({
      "main.py":
        "import os\nhere = os.path.dirname(__file__)\nfor n in ['inside.py', 'outside.txt', 'shadow']:\n    p = os.path.join(here, n)\n    print(n, os.path.lexists(p) and open(p).read()[:20])\n",
      "lib/helper.py": "X = 1\n",
    });
    symlinkSync("lib/helper.py", join(dir, "inside.py"));
    symlinkSync(secret.file, join(dir, "outside.txt"));
    symlinkSync("/etc/shadow", join(dir, "shadow"));
    const taskDir = writeTree({
      "task.json": JSON.stringify(
        scriptTask([{ name: "links", input: {}, expected: { stdout: "inside.py X = 1\n\noutside.txt False\nshadow False" } }]),
      ),
    });
    const loaded = await loadTask(join(taskDir, "task.json"));
    const report = await runTask(runnerAt("namespaces"), { loaded, deliverable: await resolveDeliverable(pathRunner, dir, loaded.task) });
    const verdict = report.cases[0]!;
    expect(verdict.actual).toMatchObject({ stdout: "inside.py X = 1\n\noutside.txt False\nshadow False\n" });
    expect(verdict.status).toBe("passed");
    expect(JSON.stringify(verdict.actual)).not.toContain(secret.token.slice(7));
  });

  it("at namespaces the code finds no trace of the task file: not in /proc, the environment, its descriptors or its folders", async () => {
    // The real CLI, so the runner's own command line names the task file, as it does for a user.
    const answer = `answer-${randomUUID()}`;
    const dir = tempDir();
    const taskFile = join(dir, "hidden", "task.json");
    mkdirSync(dirname(taskFile));
    writeFileSync(taskFile, JSON.stringify(scriptTask([{ name: "cheat", input: {}, expected: { stdout: answer } }])));
    const cheat = readFileSync(join(here, "fixtures", "find-task-file.py"), "utf8");
    mkdirSync(join(dir, "deliverable"));
    writeFileSync(join(dir, "deliverable", "main.py"), cheat);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cliBin, "--json", "test", taskFile, "--deliverable", join(dir, "deliverable"), "--sandbox-level", "namespaces"],
      { cwd: dir, env: { ...process.env, SKILLRIG_TASK_FILE: taskFile } },
    ).catch((error) => error as { stdout: string });
    const report = JSON.parse(stdout);
    const verdict = report.cases[0];
    expect(verdict.status).toBe("failed");
    // What the cheat saw, printed to stderr: no path naming the task file, its folder or the answer.
    expect(verdict.details.stderr).toContain("cheat: looked at");
    expect(verdict.details.stderr).not.toContain("hidden");
    expect(verdict.details.stderr).not.toContain(answer);
  });
});

describe("weak levels are refused for grading unless named", () => {
  const host = probeHost();
  const weak = availableLevels().filter((l) => l.available && l.level !== "namespaces");

  it.each(weak.map((l) => l.level))(
    "auto falling back to %s is refused with sandbox_unavailable, naming the level and the opt-in",
    async (level) => {
      // The machine's real sandbox, told namespaces are unavailable (as on a machine without bubblewrap).
      const fallback = createSandbox({
        host: {
          ...host,
          namespacesWork: false,
          namespacesError: "bubblewrap (bwrap) is not installed",
          ...(level === "none" ? { prlimit: undefined } : {}),
        },
      });
      expect(fallback.isolation).toBe(level);
      const runner = new Runner().use(compareModesPlugin()).use(scriptPlugin());
      runner.hooks.sandbox.tap("fallback", () => fallback);
      const dir = writeTree({
        "task.json": JSON.stringify(scriptTask([{ name: "c", input: {}, expected: { stdout: "" } }])),
        "d/main.py": "pass\n",
      });
      const loaded = await loadTask(join(dir, "task.json"));
      const error = await runTask(runner, { loaded, deliverable: await resolveDeliverable(pathRunner, join(dir, "d"), loaded.task) }).catch(
        (e) => e,
      );
      expect(error.code).toBe("sandbox_unavailable");
      expect(error.message).toContain(`refusing to grade at isolation level "${level}"`);
      expect(error.message).toContain("bubblewrap (bwrap) is not installed");
      expect(error.hint).toContain(`--sandbox-level ${level}`);
    },
  );

  it("the opt-in is in every report: JSON and JUnit say the level and that hidden tests were reachable", async () => {
    const level = weak[0]?.level;
    expect(level, "this machine has no weaker level to opt into").toBeDefined();
    const out = tempDir();
    const dir = writeTree({
      "task.json": JSON.stringify(scriptTask([{ name: "c", input: {}, expected: { stdout: "" } }])),
      "d/main.py": "pass\n",
    });
    const loaded = await loadTask(join(dir, "task.json"));
    const runner = runnerAt(level as LevelName)
      .use(new JsonReporter({ dir: out }))
      .use(new JunitReporter({ dir: out }));
    const report = await runTask(runner, { loaded, deliverable: await resolveDeliverable(pathRunner, join(dir, "d"), loaded.task) });
    expect(report.summary.passed).toBe(1);
    expect(readdirSync(out)).toEqual(["reward-hacking.json", "reward-hacking.junit.xml"]);
    const json = JSON.parse(readFileSync(join(out, "reward-hacking.json"), "utf8"));
    expect(json.isolation).toBe(level);
    expect(json.hidden_tests_reachable).toBe(true);
    const junit = readFileSync(join(out, "reward-hacking.junit.xml"), "utf8");
    expect(junit).toContain(`<property name="isolation" value="${level}"/>`);
    expect(junit).toContain('<property name="hidden_tests_reachable" value="true"/>');
  });
});
