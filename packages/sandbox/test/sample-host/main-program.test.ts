/**
 * The harness's main program kind (`sample_harness.py --main <file>`): a script or cli compiled once and run as
 * `__main__` in a fork per case must end as `python3 <file> argv...` ends. Each program below runs both ways, with
 * real Python processes, the same argv, stdin and input files: stdout, stderr, the exit status and the files left in
 * the folder must be the same. The harness runs here without a sandbox: what the sandbox adds (uids, limits, the
 * host) is tested through `openSample` with the deliverable types.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pidsWhere, readArgv } from "@skillrig/process";
import { createSandbox } from "../../src/index.js";
import { SampleHarness } from "../../src/sample-host/sample-harness.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const HARNESS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "sample-host", "sample_harness.py");
const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8", PYTHONUTF8: "1" };
const LIMITS = {
  wall_ms: 60_000,
  cpu_ms: 30_000,
  time_ms: 30_000,
  disk_bytes: 64 << 20,
  disk_entries: 1000,
  memory_bytes: 2 << 30,
  output_bytes: 1 << 20,
  value_bytes: 1 << 20,
};

interface Ended {
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  files: Record<string, string>;
}

interface Case {
  argv?: string[];
  stdin?: string;
  files?: Record<string, string>;
}

let dir: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "skillrig-main-program-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The files of a folder, relative path -> text. */
async function filesOf(folder: string, prefix = ""): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    // A folder the program closed (chmod 000), for a user other than root.
    if ((error as NodeJS.ErrnoException).code !== "EACCES") throw error;
    return { [prefix]: "<closed>" };
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) Object.assign(found, await filesOf(path, `${prefix}${entry.name}/`));
    else found[`${prefix}${entry.name}`] = await readFile(path, "utf8");
  }
  return found;
}

async function program(source: string): Promise<string> {
  const folder = join(dir, `program-${++counter}`);
  await mkdir(folder);
  const file = join(folder, "main.py");
  await writeFile(file, source);
  return file;
}

/** `python3 <file> argv...` in a fresh folder holding the case's files. */
async function runFresh(file: string, testCase: Case): Promise<Ended> {
  const cwd = join(dir, `fresh-${++counter}`);
  await mkdir(cwd);
  for (const [path, text] of Object.entries(testCase.files ?? {})) {
    await mkdir(dirname(join(cwd, path)), { recursive: true });
    await writeFile(join(cwd, path), text);
  }
  return new Promise((resolve, reject) => {
    const child = execFile(
      "python3",
      [file, ...(testCase.argv ?? [])],
      { cwd, env: ENV, encoding: "utf8" },
      async (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        if (error && typeof code !== "number" && !(error as { signal?: unknown }).signal) return reject(error);
        resolve({
          exitCode: error ? (typeof code === "number" ? code : null) : 0,
          signal: (error as { signal?: string } | null)?.signal ?? null,
          stdout,
          stderr,
          files: await filesOf(cwd),
        });
      },
    );
    child.stdin?.end(testCase.stdin ?? "");
  });
}

/** A harness with a main program loaded; `run` sends one case and reads its reply frame. */
class MainHarness {
  readonly process: ChildProcessWithoutNullStreams;
  readonly workDir: string;
  #buffer = Buffer.alloc(0);
  #waiters: (() => void)[] = [];
  #nextId = 1;

  constructor(file: string, workDir: string) {
    this.workDir = workDir;
    this.process = spawn("python3", ["-S", HARNESS, "--main", file, "1"], { cwd: workDir, env: ENV });
    this.process.stdout.on("data", (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.process.stdout.on("end", () => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static async start(file: string): Promise<{ harness: MainHarness; first: Record<string, unknown> }> {
    const workDir = join(dir, `work-${++counter}`);
    await mkdir(workDir);
    const harness = new MainHarness(file, workDir);
    const first = JSON.parse((await harness.#line()).toString("utf8"));
    return { harness, first };
  }

  async #bytes(count: number): Promise<Buffer> {
    while (this.#buffer.length < count) {
      if (this.process.stdout.readableEnded) throw new Error(`the harness ended: ${this.process.stderr.read()}`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    const taken = this.#buffer.subarray(0, count);
    this.#buffer = this.#buffer.subarray(count);
    return taken;
  }

  async #line(): Promise<Buffer> {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline >= 0) {
        const line = this.#buffer.subarray(0, newline);
        this.#buffer = this.#buffer.subarray(newline + 1);
        return line;
      }
      if (this.process.stdout.readableEnded) throw new Error("the harness ended");
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async run(testCase: Case): Promise<Ended & { header: Record<string, unknown>; folder: string }> {
    const request = { id: this.#nextId++, ...LIMITS, argv: testCase.argv ?? [], stdin: testCase.stdin ?? "", files: testCase.files ?? {} };
    this.process.stdin.write(`${JSON.stringify(request)}\n`);
    // The case's "started" line comes first (the runner's deadline for it starts there); then its reply.
    let header = JSON.parse((await this.#line()).toString("utf8"));
    if (header.started === request.id) header = JSON.parse((await this.#line()).toString("utf8"));
    await this.#bytes(header.value_len);
    const stdout = (await this.#bytes(header.stdout_len)).toString("utf8");
    const stderr = (await this.#bytes(header.stderr_len)).toString("utf8");
    const folder = header.folder as string;
    return {
      header,
      folder,
      exitCode: header.end === "exited" ? header.exit_code : null,
      signal: header.end === "signaled" ? header.signal : null,
      stdout,
      stderr,
      files: await filesOf(folder),
    };
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.stdin.end();
    await exited;
  }
}

/** Runs each case both ways and expects the same end; returns the harness's replies. */
async function expectParity(source: string, cases: Case[]) {
  const file = await program(source);
  const { harness, first } = await MainHarness.start(file);
  expect(first.op).toBe("ready");
  const replies = [];
  try {
    for (const testCase of cases) {
      const fresh = await runFresh(file, testCase);
      const forked = await harness.run(testCase);
      expect({ ...forked, header: undefined, folder: undefined }).toEqual({ ...fresh, header: undefined, folder: undefined });
      replies.push(forked);
    }
  } finally {
    await harness.stop();
  }
  return replies;
}

describe("a main program runs as python3 <file> would run it", () => {
  test("argv, stdin, input files, __name__, __file__, sys.argv, sys.path[0], unicode, and the files it writes", async () => {
    const replies = await expectParity(
      `import os, sys
print("name", __name__, "file", __file__ == sys.argv[0], "argv", sys.argv[1:])
print("path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
print("main module", sys.modules["__main__"].__dict__ is globals(), __spec__, type(__loader__).__name__, __loader__.name)
import inspect
def shown(): pass
print("source", inspect.getsource(shown).strip())
text = sys.stdin.read()
print("stdin", repr(text), "isatty", sys.stdin.isatty())
print("listing", sorted(os.listdir(".")))
if os.path.exists("in/data.txt"):
    with open("in/data.txt", encoding="utf-8") as f:
        print("input", f.read())
with open("out.txt", "w", encoding="utf-8") as f:
    f.write("written: " + text.upper())
os.remove("gone.txt") if os.path.exists("gone.txt") else None
print("ünïcödé ✓ 😀", file=sys.stderr)
`,
      [
        { argv: ["--flag", "välue", ""], stdin: "héllo\nwörld\n", files: { "in/data.txt": "dätä\n", "gone.txt": "x" } },
        { argv: [], stdin: "" },
      ],
    );
    // Each case ran in a fresh folder of its own, left as the case left it.
    expect(replies[0]!.folder).not.toBe(replies[1]!.folder);
    expect(replies[0]!.files["out.txt"]).toBe("written: HÉLLO\nWÖRLD\n");
    expect(replies[1]!.files).toEqual({ "out.txt": "written: " });
  });

  test("exit statuses: sys.exit variants, os._exit, an uncaught exception printed without harness frames", async () => {
    const replies = await expectParity(
      `import os, sys
mode = sys.argv[1]
print("start")
if mode == "none": sys.exit()
if mode == "three": sys.exit(3)
if mode == "big": sys.exit(300)
if mode == "true": sys.exit(True)
if mode == "text": sys.exit("goodbye to stderr")
if mode == "raise": exit(4)
if mode == "os_exit":
    sys.stdout.flush()
    os._exit(7)
if mode == "error":
    def inner():
        raise ValueError("bäd välue")
    inner()
if mode == "chained":
    try:
        {}["k"]
    except KeyError as exc:
        raise RuntimeError("while handling") from exc
if mode == "closed":
    print("then closed")
    sys.stdout.close()
    sys.exit(0)
if mode == "hook":
    sys.excepthook = lambda t, v, tb: print("hooked", t.__name__, file=sys.stderr)
    raise OSError("quiet")
print("end")
`,
      ["none", "three", "big", "true", "text", "raise", "os_exit", "error", "chained", "closed", "hook", "normal"].map((mode) => ({
        argv: [mode],
      })),
    );
    expect(replies.map((r) => r.exitCode)).toEqual([0, 3, 44, 1, 1, 4, 7, 1, 1, 0, 1, 0]);
    expect(replies[7]!.stderr).toContain('line 15, in inner\n    raise ValueError("bäd välue")');
    expect(replies[7]!.stderr).not.toContain("sample_harness");
  });

  test("non-daemon threads finish and atexit handlers run before the end, in the interpreter's order", async () => {
    await expectParity(
      `import atexit, sys, threading, time
atexit.register(lambda: print("atexit 1"))
atexit.register(lambda: print("atexit 2", flush=True))
def work():
    time.sleep(0.3)
    print("thread done")
threading.Thread(target=work).start()
threading.Thread(target=lambda: time.sleep(600), daemon=True).start()
print("main done")
if sys.argv[1:] == ["exit"]:
    sys.exit(5)
`,
      [{ argv: [] }, { argv: ["exit"] }],
    );
  });

  test("input() reads stdin line by line and meets EOF as python3 does", async () => {
    await expectParity(
      `total = 0
while True:
    try:
        line = input()
    except EOFError:
        break
    total += int(line)
print(total)
`,
      [{ stdin: "1\n2\n3\n" }, { stdin: "40\n2" }, { stdin: "x\n" }],
    );
  });

  test("a syntax error is a load error that carries what python3 prints and its exit status", async () => {
    const file = await program("print('ok')\ndef broken(:\n    pass\n");
    const { harness, first } = await MainHarness.start(file);
    await harness.stop();
    const fresh = await runFresh(file, {});
    expect(first).toMatchObject({ op: "load_error", kind: "syntax_error", exit_code: fresh.exitCode, traceback: fresh.stderr });
    expect(fresh.exitCode).toBe(1);
  });

  test("nothing a case starts outlives its reply: a child, a detached daemon", async () => {
    const marker = `skillrig-main-leftover-${process.pid}-${Date.now()}`;
    const file = await program(`import os, subprocess, sys
subprocess.Popen(["sleep", "600", "${marker}"])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "601", "${marker}"])
    os._exit(0)
print("left them running")
`);
    const { harness } = await MainHarness.start(file);
    try {
      const reply = await harness.run({});
      expect(reply.exitCode).toBe(0);
      expect(reply.stdout).toBe("left them running\n");
      const running = pidsWhere((pid) => readArgv(pid)?.includes(marker) === true);
      expect(running).toEqual([]);
    } finally {
      await harness.stop();
    }
  });

  test("the harness never empties or reuses a main case's folder before the next case; a new case gets a new one", async () => {
    const file = await program(`import os
print(sorted(os.listdir(".")))
open("left.txt", "w").write(str(len(os.listdir(".."))))
`);
    const { harness } = await MainHarness.start(file);
    try {
      const first = await harness.run({ files: { "a.txt": "a" } });
      expect(first.stdout).toBe("['a.txt']\n");
      expect(readdirSync(first.folder).sort()).toEqual(["a.txt", "left.txt"]);
      const second = await harness.run({});
      expect(second.stdout).toBe("[]\n");
      expect(first.folder).not.toBe(second.folder);
      expect(dirname(first.folder)).toBe(harness.workDir);
    } finally {
      await harness.stop();
    }
  });
});

test("a main case's folder is removed when the next case starts, even one it closed with chmod 000", async () => {
  const file = await program(`import os
os.makedirs("deep/er", exist_ok=True)
open("deep/er/f.txt", "w").write("x")
os.chmod("deep/er", 0)
os.chmod("deep", 0)
`);
  const { harness } = await MainHarness.start(file);
  try {
    const first = await harness.run({});
    expect(existsSync(join(first.folder, "deep"))).toBe(true);
    await harness.run({});
    expect(existsSync(first.folder)).toBe(false);
  } finally {
    await harness.stop();
  }
});

test("a harness that names another folder than one of its own case folders is stopped, the folder never read", async () => {
  // The harness is untrusted: a reply pointing the runner at /etc, or at a case-like folder beside its working
  // folder, must not become a folder the runner reads or removes. This one names whatever its case's stdin says.
  const liar = join(dir, "lying_harness.py");
  await writeFile(
    liar,
    `import json, sys
print(json.dumps({"op": "ready", "signature": None, "signature_error": None, "import_stdout": "", "import_stderr": "", "pid": 1}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"id": request["id"], "end": "exited", "exit_code": 0, "ms": 1, "value_len": 0, "stdout_len": 0, "stderr_len": 0, "folder": request["stdin"]}), flush=True)
`,
  );
  // As root the sandbox runs it as a per-run uid: the test's 0700 temp folder is opened to read.
  await chmod(dir, 0o755);
  const sandbox = createSandbox({});
  const workDir = join(dir, `liar-work-${++counter}`);
  await mkdir(workDir);
  const start = () =>
    SampleHarness.start({
      sandbox,
      python: "python3",
      harnessFile: liar,
      entryFile: join(dir, "unused.py"),
      functionName: "",
      spares: 1,
      workDir,
      readOnlyPaths: [dir],
      limits: { wallMs: 60_000 },
      loadTimeoutMs: 30_000,
      stuckGraceMs: 5_000,
    });
  const named = async (folder: string) => {
    const { harness, load } = await start();
    expect(load.ok ? "loaded" : JSON.stringify(load.error)).toBe("loaded");
    try {
      return await harness.run({ ...LIMITS, argv: [], stdin: folder, files: {} }).then(
        (reply) => ({ accepted: reply.folder }),
        (error: Error) => ({ refused: error.message }),
      );
    } finally {
      await harness.stop(0);
    }
  };
  expect(await named("/etc")).toEqual({ refused: expect.stringMatching(/misbehaved and was stopped: .*"\/etc" as case 1's folder/) });
  expect(await named(join(dir, "case-0123456789abcdef"))).toEqual({ refused: expect.stringContaining("not one of its case folders") });
  expect(await named(join(workDir, "case-..", "etc"))).toEqual({ refused: expect.stringContaining("not one of its case folders") });
  // The control: a folder named as the harness names its own is taken.
  const own = join(workDir, "case-0123456789abcdef");
  expect(await named(own)).toEqual({ accepted: own });
});
