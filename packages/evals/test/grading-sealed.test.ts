/**
 * Sealed checkers: a `script` checker that runs the agent's program on hidden inputs through `skillrig_sealed`
 * (the runner starts it in a sandbox of its own, as root under a uid of its own) passes an honest program and fails
 * one that reads the hidden cases instead of computing: that program sees neither evals/ nor the checker's
 * environment. The unsealed way (the checker starting the program itself) is shown to hand it everything, so the
 * sealed assertions are known to be able to fail. And the channel's bounds: a bad request, a time limit past the
 * config's, too many runs, each refused with its code.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runner } from "@skillrig/core";
import type { Assertion, Grading } from "../src/format.js";
import { gradeRun } from "../src/grading/index.js";
import { copySkill, gradingRunner, input, tempFolder, writeOutputs } from "./grading-helpers.js";

let dir: string;
let cleanup: () => void;
let runner: Runner;
let skillDir: string;

beforeAll(() => {
  ({ dir, cleanup } = tempFolder("evals-grading-sealed-"));
  runner = gradingRunner(dir);
  skillDir = copySkill(dir, "sealed-skill");
});
afterAll(async () => {
  await runner.close();
  cleanup();
});

const sealed: Assertion = {
  kind: "script",
  command: 'python3 "$SKILLRIG_EVALS_DIR/check_sealed.py"',
  text: "solve.py passes the hidden cases",
};
const naive: Assertion = { kind: "script", command: 'python3 "$SKILLRIG_EVALS_DIR/check_naive.py"', text: "naive" };
const grade = (outputs: string, assertions: Assertion[], r: Runner = runner): Promise<Grading> =>
  gradeRun(input({ runner: r, skillDir, outputsDir: outputs, runsDir: join(dir, "runs") }, assertions));

const HONEST = "import sys\nfor line in sys.stdin:\n    print(int(line) * 2)\n";
/** Computes nothing: looks the answer up in the hidden cases, wherever it can find them. */
const CHEAT = `import glob, json, os, sys
data = sys.stdin.read()
seen = []
places = [os.environ.get("SKILLRIG_EVALS_DIR", "")] + glob.glob("/tmp/*/skills/*/evals")
for place in places:
    path = place if place.endswith(".json") else os.path.join(place, "hidden", "cases.json")
    try:
        cases = json.load(open(path))
    except OSError:
        continue
    for case in cases:
        if case["input"] == data:
            print("CHEATED", file=sys.stderr)
            sys.stdout.write(case["expected"])
            sys.exit(0)
print("nothing found; env:", sorted(k for k in os.environ if k.startswith("SKILLRIG")), file=sys.stderr)
sys.exit(1)
`;

describe("sealed runs of the agent's program from a script checker", () => {
  it("an honest program passes the sealed checker", async () => {
    const outputs = writeOutputs(dir, { "solve.py": HONEST }, "out-honest");
    const g = await grade(outputs, [sealed]);
    expect(g.assertion_results[0], g.assertion_results[0]!.evidence).toMatchObject({ passed: true });
    expect(g.assertion_results[0]!.evidence).toContain("3 hidden cases passed");
  }, 120_000);

  it("a program that reads the hidden cases passes the unsealed checker but fails the sealed one: must fail", async () => {
    const outputs = writeOutputs(dir, { "solve.py": CHEAT }, "out-cheat");
    const g = await grade(outputs, [naive, sealed]);
    // Unsealed, the program inherits $SKILLRIG_EVALS_DIR and the bound folder: the attack works.
    expect(g.assertion_results[0], g.assertion_results[0]!.evidence).toMatchObject({ passed: true });
    // Sealed, it sees no evals/ and no variable naming one.
    expect(g.assertion_results[1]).toMatchObject({ passed: false });
    expect(g.assertion_results[1]!.evidence).toContain("nothing found; env: []");
    expect(g.assertion_results[1]!.evidence).not.toContain("CHEATED");
  }, 120_000);

  it("a skillrig_sealed.py or json.py the agent ships does not replace the checker's (PYTHONSAFEPATH): must fail", async () => {
    const fake = 'import os, sys\nprint("HIJACKED")\nsys.stdout.flush()\nos._exit(0)\n';
    const outputs = writeOutputs(dir, { "solve.py": CHEAT, "skillrig_sealed.py": fake, "json.py": fake }, "out-hijack");
    // `python3 -c` would put the working folder (the agent's files) first on sys.path, before PYTHONPATH.
    const inline: Assertion = {
      kind: "script",
      command: `python3 -c 'import os, runpy; runpy.run_path(os.environ["SKILLRIG_EVALS_DIR"] + "/check_sealed.py", run_name="__main__")'`,
    };
    const g = await grade(outputs, [inline]);
    // The checker ran its own code to its own verdict (its message), not the agent's module (which exits 0). The
    // agent's program imports its own json.py in its own sandbox: that is its business, and it still fails.
    expect(g.assertion_results[0]).toMatchObject({
      passed: false,
      evidence: expect.stringMatching(/^it exited with code 1; output: case 0: /),
    });
  }, 120_000);

  it("the sealed program gets only the outputs and the files the checker hands it, in a fresh copy each time", async () => {
    const probe = `import os, sys
print(sorted(os.listdir(".")), open("given.txt").read(), os.getuid(), os.path.exists(os.environ.get("SKILLRIG_ANSWER_FILE", "/nonexistent")))
open("solve.py", "w").write("changed")
`;
    const checker = `from skillrig_sealed import run
import os, sys
a = run(["python3", "probe.py"], files={"given.txt": "from the checker"})
b = run(["python3", "probe.py"], files={"given.txt": "again"})
print(a.stdout.strip(), "|", b.stdout.strip(), "|", a.stderr.strip(), "| checker uid", os.getuid())
sys.exit(0 if a.ok and b.ok else 1)
`;
    const outputs = writeOutputs(dir, { "probe.py": probe, "solve.py": HONEST }, "out-probe");
    const g = await grade(outputs, [{ kind: "script", command: `python3 -c '${checker.replaceAll("'", "'\\''")}'` }]);
    const evidence = g.assertion_results[0]!.evidence;
    expect(g.assertion_results[0], evidence).toMatchObject({ passed: true });
    // Each run saw the outputs plus its own file, never the other run's change, never the answer file.
    expect(evidence).toContain("['given.txt', 'probe.py', 'solve.py'] from the checker");
    expect(evidence).toContain("['given.txt', 'probe.py', 'solve.py'] again");
    expect(evidence).not.toContain("True");
    if (process.getuid?.() === 0) {
      const m = /from the checker (\d+) .*\| checker uid (\d+)/.exec(evidence);
      expect(m, evidence).not.toBeNull();
      expect(m![1]).not.toBe(m![2]);
      expect(m![1]).not.toBe("0");
    }
  }, 120_000);

  it("refuses bad requests and requests past the bounds, each with its code", async () => {
    const bounded = gradingRunner(dir);
    bounded.config.evals = { sealed_runs: { max_runs: 2, timeout_ms: 3000, max_request_bytes: 4096 } };
    try {
      const outputs = writeOutputs(dir, { "solve.py": HONEST }, "out-bounds");
      const checker = `from skillrig_sealed import run, SealedRunError
def attempt(**kw):
    try:
        r = run(**kw)
        return "ran:" + r.ended
    except SealedRunError as e:
        return "refused:" + e.code
print(attempt(argv=["python3", "solve.py"], timeout_ms=60000))
print(attempt(argv=["python3", "solve.py"], files={"../escape.txt": "x"}))
print(attempt(argv=["python3", "solve.py"], stdin="1" * 10000))
print(attempt(argv=["python3", "-c", "while True: pass"], timeout_ms=500))
print(attempt(argv=["python3", "solve.py"], stdin="2\\n"))
print(attempt(argv=["python3", "solve.py"], stdin="2\\n"))
`;
      const g = await grade(outputs, [{ kind: "script", command: `python3 -c '${checker}'` }], bounded);
      const lines = g.assertion_results[0]!.evidence.split("output: ")[1]!.split("\n");
      expect(lines).toEqual([
        "refused:sealed_limit",
        "refused:sealed_bad_request",
        "refused:sealed_limit",
        "ran:timeout",
        "ran:exited",
        "refused:sealed_limit",
      ]);
    } finally {
      await bounded.close();
    }
  }, 120_000);

  it("connections past evals.sealed_runs.max_connections are closed unanswered; the channel serves again once they end", async () => {
    const bounded = gradingRunner(dir);
    bounded.config.evals = { sealed_runs: { max_connections: 2 } };
    try {
      const outputs = writeOutputs(dir, { "solve.py": HONEST }, "out-connections");
      const checker = `import os, socket, time
from skillrig_sealed import run, SealedRunError
held = []
for _ in range(2):
    s = socket.socket(socket.AF_UNIX)
    s.connect(os.environ["SKILLRIG_SEALED_SOCKET"])
    held.append(s)
# The runner counts a connection when it accepts it, which may come after connect() returned: ask until refused.
for _ in range(100):
    try:
        run(["python3", "solve.py"], stdin="1\\n")
        time.sleep(0.05)
    except (SealedRunError, OSError) as e:
        print("third:", type(e).__name__, getattr(e, "code", ""))
        break
else:
    print("third: always ran")
for s in held:
    s.close()
# And it sees the held ones end when it reads their close: ask until served.
for _ in range(100):
    try:
        print("after:", run(["python3", "solve.py"], stdin="4\\n").stdout.strip())
        break
    except (SealedRunError, OSError):
        time.sleep(0.05)
`;
      const g = await grade(outputs, [{ kind: "script", command: `python3 -c '${checker}'` }], bounded);
      const out = g.assertion_results[0]!.evidence;
      expect(out).toMatch(/third: (SealedRunError sealed_protocol|ConnectionResetError|BrokenPipeError)/);
      expect(out).toContain("after: 8");
    } finally {
      await bounded.close();
    }
  }, 120_000);
});
