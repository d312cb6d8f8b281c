/**
 * What one call of fn(*input) can do and what the plugin makes of it: real modules on disk, the real sandbox,
 * one harness per task that forks a child per case.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import type { CaseOutcome } from "@skillrig/core";
import type { HostedSample } from "@skillrig/sandbox";
import { drive, harnessOf, makeCase, removeModules } from "./drive.js";

afterAll(removeModules);

/** Runs `entrypoint` of `source` once per input. */
async function outcomes(
  source: string,
  entrypoint: string,
  inputs: unknown[][],
  extra: Parameters<typeof drive>[0] extends infer O ? Partial<O> : never = {},
) {
  const driven = await drive({ entrypoint, source, tests: inputs.map((input) => makeCase(input)), ...extra });
  return driven.outcomes as CaseOutcome[];
}

describe("spares", () => {
  test("the harness forks a spare for each case still to come, and none after the last", async () => {
    // Each case counts its siblings, the other children of the fork server (the spare waiting for the next case;
    // cases run one at a time), waiting up to 3 s for one to appear: a spare is forked while the case runs.
    const source = `
import os, time

def count_siblings():
    me, parent = os.getpid(), os.getppid()
    count = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                    count += 1
        except (OSError, ValueError, IndexError):
            pass
    return count

def siblings(_):
    deadline = time.monotonic() + 3
    while True:
        count = count_siblings()
        if count > 0 or time.monotonic() > deadline:
            return count
        time.sleep(0.05)
`;
    const results = await outcomes(source, "siblings", [[1], [2], [3]], { jobs: 1 });
    expect(results.map((o) => o.actual)).toEqual([1, 1, 0]);
  });
});

describe("isolation between cases", () => {
  test("module state one case mutates (a counter, a global list) is never seen by another", async () => {
    const source = `
COUNT = 0
SEEN = []

def bump(x):
    global COUNT
    COUNT += 1
    SEEN.append(x)
    return [COUNT, SEEN]
`;
    const results = await outcomes(source, "bump", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]], { jobs: 2 });
    expect(results.map((o) => o.actual)).toEqual([
      [1, ["a"]],
      [1, ["b"]],
      [1, ["c"]],
      [1, ["d"]],
      [1, ["e"]],
      [1, ["f"]],
    ]);
  });

  test("each case gets its own empty working folder", async () => {
    const source = `
import os

def write_and_list(name):
    before = sorted(os.listdir("."))
    with open(name, "w") as f:
        f.write("x")
    return before
`;
    const results = await outcomes(source, "write_and_list", [["one.txt"], ["two.txt"], ["three.txt"]]);
    expect(results.map((o) => o.actual)).toEqual([[], [], []]);
  });

  test("many cases in flight at once each get their own reply", async () => {
    const inputs = Array.from({ length: 60 }, (_, i) => [i, i * 2]);
    const results = await outcomes("def add(a, b):\n    return a + b\n", "add", inputs, { jobs: 2 });
    expect(results.map((o) => o.actual)).toEqual(inputs.map(([a, b]) => (a as number) + (b as number)));
    expect(results[0]?.comparisons).toEqual([
      {
        field: "return value",
        expected: null,
        actual: 0,
        defaultMode: "json",
        decoded: true,
        exactJson: { expected: "null", actual: "0" },
      },
    ]);
  });
});

describe("return values go through JSON", () => {
  const source = `
import math

def value(kind):
    return {
        "tuple": lambda: (1, (2, 3)),
        "dict": lambda: {"a": [1.5, None, True]},
        "set": lambda: {1, 2},
        "nan": lambda: math.nan,
        "object": lambda: object(),
    }[kind]()
`;
  test("tuples become lists; dicts, floats, None and booleans pass through", async () => {
    const results = await outcomes(source, "value", [["tuple"], ["dict"]]);
    expect(results.map((o) => [o.status, o.actual])).toEqual([
      [undefined, [1, [2, 3]]],
      [undefined, { a: [1.5, null, true] }],
    ]);
  });

  test("large and non-ASCII return values arrive whole", async () => {
    const source = 'def value(n):\n    print("苹果 x2")\n    return {"fruit": "苹果", "blob": "x" * n}\n';
    const [outcome] = await outcomes(source, "value", [[300_000]]);
    expect(outcome?.actual).toEqual({ fruit: "苹果", blob: "x".repeat(300_000) });
    expect(outcome?.details?.stdout).toBe("苹果 x2\n");
  });

  test("a value JSON cannot represent is an error naming its type; NaN goes to the compare as Python writes it", async () => {
    const [set, nan, obj] = await outcomes(source, "value", [["set"], ["nan"], ["object"]]);
    expect(set?.status).toBe("error");
    expect(set?.message).toMatch(/^the return value cannot be represented in JSON: set \{1, 2\}/);
    expect(set?.details?.return_type).toBe("set");
    expect(obj?.message).toMatch(/cannot be represented in JSON: object <object object at/);
    expect(set?.comparisons).toEqual([]);
    // NaN is a float Python's json writes (and reads); the compare decides (NaN equals nothing, see docs/values.md).
    expect(nan?.status).toBeUndefined();
    expect(nan?.comparisons[0]?.exactJson?.actual).toBe("NaN");
    expect(nan?.details?.return_json).toBe("NaN");
  });
});

describe("exceptions and prints", () => {
  test("an exception is an error with its type, message and a traceback without harness frames", async () => {
    const source = `
def helper(n):
    raise ValueError(f"bad value {n}")

def parse(n):
    return helper(n)
`;
    const [outcome] = await outcomes(source, "parse", [[7]]);
    expect(outcome?.status).toBe("error");
    expect(outcome?.message).toBe("ValueError: bad value 7");
    expect(outcome?.details?.exception_type).toBe("ValueError");
    const traceback = outcome?.details?.traceback as string;
    expect(traceback).toMatch(/solution\.py", line 6, in parse/);
    expect(traceback).toMatch(/solution\.py", line 3, in helper/);
    expect(traceback).toMatch(/ValueError: bad value 7\n$/);
    expect(traceback).not.toMatch(/sample_harness/);
  });

  test("what the function prints is captured apart from the return value", async () => {
    const source = `
import sys, os

def chatty(x):
    print("working on", x)
    print("a warning", file=sys.stderr)
    os.write(1, b"raw fd write\\n")
    return x * 2
`;
    const [outcome] = await outcomes(source, "chatty", [[21]]);
    expect(outcome?.status).toBeUndefined();
    expect(outcome?.actual).toBe(42);
    expect(outcome?.details?.stdout).toContain("working on 21\n");
    expect(outcome?.details?.stdout).toContain("raw fd write\n");
    expect(outcome?.details?.stderr).toBe("a warning\n");
  });

  test("sys.exit, os._exit and a process that kills itself are errors, not crashes of the run", async () => {
    const source = `
import os, signal, sys

def leave(how):
    if how == "sys.exit":
        sys.exit(2)
    if how == "os._exit":
        os._exit(3)
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    return "stayed"
`;
    const [sysExit, osExit, kill, stayed] = await outcomes(source, "leave", [["sys.exit"], ["os._exit"], ["kill"], ["no"]]);
    expect([sysExit?.status, sysExit?.message]).toEqual(["error", "the function called sys.exit(2) instead of returning"]);
    expect([osExit?.status, osExit?.message]).toEqual([
      "error",
      "the case process exited with code 3 before the function returned (did it call os._exit?)",
    ]);
    expect([kill?.status, kill?.message]).toEqual(["error", "the case process was killed by signal SIGKILL before the function returned"]);
    expect(stayed?.actual).toBe("stayed");
  });

  test("a child process the function leaves running is killed when its case ends", async () => {
    const marker = `skillrig-linger-${process.pid}-${Date.now()}`;
    const source = `
import subprocess, sys

def spawn(marker):
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    return "spawned"
`;
    const processesWithMarker = () =>
      readdirSync("/proc")
        .filter((pid) => /^\d+$/.test(pid))
        .filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
          } catch {
            return false;
          }
        });
    let lingering: string[] | undefined;
    // Checked while the harness still runs (taskEnd would kill the whole tree anyway); a kill takes a moment to land.
    const gone = async () => {
      for (let waited = 0; waited < 2000 && processesWithMarker().length > 0; waited += 50) await new Promise((r) => setTimeout(r, 50));
      lingering = processesWithMarker();
    };
    const driven = await drive({ entrypoint: "spawn", source, tests: [makeCase([marker])], beforeEnd: gone });
    expect(driven.outcomes[0]?.actual).toBe("spawned");
    expect(lingering).toEqual([]);
  });
});

describe("limits", () => {
  test("a call past its time limit (CPU) or its wall-clock backstop is a timeout, and the other cases still run", async () => {
    const source = `
import time

def slow(how):
    if how == "spin":
        while True:
            pass
    if how == "sleep":
        time.sleep(60)
    return how
`;
    const driven = await drive({
      entrypoint: "slow",
      source,
      tests: [makeCase(["spin"], null, { timeout_ms: 400 }), makeCase(["sleep"], null, { timeout_ms: 400 }), makeCase(["fast"])],
    });
    const [spin, sleep, fast] = driven.outcomes;
    // The time limit counts CPU: the spinner passes it; the sleeper uses none and meets the wall-clock backstop.
    expect([spin?.status, spin?.message]).toEqual([
      "timeout",
      "the call used more than 400 ms of CPU time (its processes together); they were killed",
    ]);
    expect([sleep?.status, sleep?.message]).toEqual([
      "timeout",
      "the call did not return within 10400 ms of wall-clock time (the backstop of its 400 ms CPU time limit: it slept, blocked or waited); its process was killed",
    ]);
    expect(fast?.actual).toBe("fast");
  });

  test("allocating past the memory limit is memory_limit", async () => {
    const source = "def hog(mb):\n    return len(bytearray(mb * 1024 * 1024))\n";
    const results = await outcomes(source, "hog", [[2048], [1]], { limits: { memory_bytes: 512 * 1024 * 1024 } });
    expect(results[0]?.status).toBe("memory_limit");
    expect(results[0]?.message).toMatch(/^MemoryError: the function needed more than the memory limit of 536870912 bytes/);
    expect(results[1]?.actual).toBe(1024 * 1024);
  });

  test("printing past the output limit is output_limit, with what was printed up to the cap", async () => {
    const source = "def shout(n):\n    for _ in range(n):\n        print('y' * 99)\n    return n\n";
    const results = await outcomes(source, "shout", [[100_000], [3]], { limits: { output_bytes: 2000 } });
    expect(results[0]?.status).toBe("output_limit");
    expect(results[0]?.message).toBe("the function wrote more than 2000 bytes to stdout; its process was killed");
    expect((results[0]?.details?.stdout as string).length).toBe(2000);
    expect(results[1]?.actual).toBe(3);
  });
});

describe("a deliverable that does not load", () => {
  test("a syntax error fails every case with one clear message (args lists are still checked)", async () => {
    const driven = await drive({
      entrypoint: "add",
      source: "def add(a, b)\n    return a + b\n",
      tests: [makeCase([1, 2]), makeCase([1]), makeCase("x")],
    });
    expect(driven.resolutions.map((r) => r.violations.length)).toEqual([0, 0, 1]);
    for (const outcome of driven.outcomes.slice(0, 2)) {
      expect(outcome?.status).toBe("error");
      expect(outcome?.message).toBe("the deliverable could not be loaded: SyntaxError in solution.py line 1: expected ':'");
      expect(outcome?.details?.load_error).toBe("syntax_error");
    }
  });

  test("an exception at import time", async () => {
    const [outcome] = await outcomes("import json\nraise RuntimeError('no config file')\ndef add(a, b):\n    return a + b\n", "add", [
      [1, 2],
    ]);
    expect(outcome?.message).toBe("the deliverable could not be loaded: importing solution.py raised RuntimeError: no config file");
    expect(outcome?.details?.traceback).toMatch(/solution\.py", line 2, in <module>/);
    expect(outcome?.details?.traceback).not.toMatch(/sample_harness|importlib/);
  });

  test("a missing function names what the module does define", async () => {
    const [outcome] = await outcomes("def plus(a, b):\n    return a + b\n\ndef _private():\n    pass\n", "add", [[1, 2]]);
    expect(outcome?.message).toBe('the deliverable could not be loaded: solution.py has no function "add"; it defines plus');
  });

  test("a name that is not callable", async () => {
    const [outcome] = await outcomes("add = 5\n", "add", [[1, 2]]);
    expect(outcome?.message).toBe('the deliverable could not be loaded: "add" in solution.py is a int (5), not a function');
  });

  test("prints at import time do not disturb the harness", async () => {
    const [outcome] = await outcomes(
      "print('hello from import')\nimport os\nos.write(1, b'raw\\n')\ndef add(a, b):\n    return a + b\n",
      "add",
      [[1, 2]],
    );
    expect(outcome?.actual).toBe(3);
  });
});

describe("the harness itself", () => {
  test("killed from outside: the next cases start a fresh harness", async () => {
    let restartsSeen: (() => number) | undefined;
    const driven = await drive({
      entrypoint: "add",
      source: "def add(a, b):\n    return a + b\n",
      tests: [makeCase([1, 2]), makeCase([3, 4])],
      afterStart: async (run) => {
        const sample = harnessOf(run).sample as HostedSample;
        await sample.killHarness();
        restartsSeen = () => sample.restarts;
      },
    });
    expect(driven.outcomes.map((o) => o?.actual)).toEqual([3, 7]);
    expect(restartsSeen?.()).toBe(1);
  });

  // A case's parent is the harness's fork server; the fork server's parent is the harness.
  const FAMILY = `
import os, signal, time

def harness_pid():
    with open(f"/proc/{os.getppid()}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])

def act(how):
    if how == "kill harness":
        os.kill(harness_pid(), signal.SIGKILL)
    if how == "kill fork server":
        os.kill(os.getppid(), signal.SIGKILL)
    if how == "freeze harness":
        os.kill(harness_pid(), signal.SIGSTOP)
        return how
    time.sleep(2)
    return how
`;

  test("killed by a case: the cases in flight get a clear error, never a hang", async () => {
    const results = await outcomes(FAMILY, "act", [["kill harness"], ["wait"]], { plugin: { maxRestarts: 0 } });
    for (const outcome of results) {
      expect(outcome?.status).toBe("error");
      expect(outcome?.message).toMatch(/^the sample harness died: it was killed by signal SIGKILL.* \(while this case ran\)$/);
    }
  });

  test("its fork server killed by a case: the killer gets its error, the case beside it its own verdict (issue 38)", async () => {
    const driven = await drive({
      entrypoint: "act",
      source: FAMILY,
      tests: [makeCase(["kill fork server"]), makeCase(["wait"])],
      jobs: 2,
    });
    const [killer, beside] = driven.outcomes;
    // Both ran again, alone, on a fresh harness: the killer killed that fork server too (its reply, or its
    // harness's end), the other returned as it would alone.
    expect(killer?.status).toBe("error");
    expect(killer?.message).toMatch(
      /^the sample harness (lost its fork server \(signal SIGKILL\) while this case ran|died: .* \(while this case ran\))$/,
    );
    expect(beside?.status).not.toBe("error");
    expect(beside?.actual).toBe("wait");
  });

  test("a harness that keeps dying is restarted up to maxRestarts, then the remaining cases are not run", async () => {
    const results = await outcomes(FAMILY, "act", [["kill harness"], ["kill harness"], ["wait"]], { jobs: 1, plugin: { maxRestarts: 1 } });
    // The first killer ran again alone on the one restart (a case lost to its harness's death may be another's
    // victim), killed that harness too, and keeps its loss; nothing is left to restart the rest with.
    expect(results[0]?.message).toMatch(/^the sample harness died: .* \(while this case ran\)$/);
    for (const later of results.slice(1)) {
      expect(later).toMatchObject({
        status: "error",
        message: "the sample harness died 2 time(s) in this task run; the remaining cases were not run",
      });
    }
  });

  test("a harness that stops answering is stopped after the grace time", async () => {
    const driven = await drive({
      entrypoint: "act",
      source: FAMILY,
      tests: [makeCase(["freeze harness"], null, { timeout_ms: 300 })],
      plugin: { stuckGraceMs: 300, maxRestarts: 0 },
    });
    // The runner's own deadline decides: the case is a timeout, whatever the harness does.
    expect(driven.outcomes[0]?.status).toBe("timeout");
    expect(driven.outcomes[0]?.message).toBe(
      "the call did not end within 10300 ms (the wall-clock backstop of its 300 ms time limit) and the harness did not stop it; the runner stopped the harness",
    );
  });
});
