import { describe, expect, it } from "vitest";
import { Runner, PluginConflictError, type SkillrigError, type SkillrigPlugin, type CaseWork, type InputResolution } from "../src/index.js";

const fakeCase = { kind: "case", index: 0 } as unknown as CaseWork;

function plugin(name: string, apply: (runner: Runner) => void): SkillrigPlugin {
  return { name, apply };
}

describe("Runner hooks", () => {
  it("declares the five hook points and the lifecycle hooks once, frozen", () => {
    const runner = new Runner();
    for (const hook of [
      "resolveInput",
      "renderPrompt",
      "execute",
      "collectArtifacts",
      "compare",
      "runStart",
      "runEnd",
      "caseResult",
      "jobResult",
      "jobEvent",
      "taskStart",
      "taskEnd",
      "sandbox",
    ]) {
      expect(runner.hooks).toHaveProperty(hook);
    }
    expect(Object.isFrozen(runner.hooks)).toBe(true);
  });

  it("resolveInput is a waterfall: each tap refines what the previous one returned, in plugin order", async () => {
    const runner = new Runner();
    const order: string[] = [];
    runner.use(
      plugin("a", (r) =>
        r.hooks.resolveInput.tapPromise("a", async (res) => {
          order.push("a");
          return { ...res, value: [...(res.value as number[]), 1] };
        }),
      ),
    );
    runner.use(
      plugin("b", (r) =>
        r.hooks.resolveInput.tapPromise("b", async (res) => {
          order.push("b");
          return { ...res, value: [...(res.value as number[]), 2], violations: [{ message: "b saw it" }] };
        }),
      ),
    );
    const out: InputResolution = await runner.hooks.resolveInput.promise({ value: [], violations: [] }, fakeCase);
    expect(order).toEqual(["a", "b"]);
    expect(out.value).toEqual([1, 2]);
    expect(out.violations).toEqual([{ message: "b saw it" }]);
  });

  it("execute is a bail: the first tap that returns an outcome wins and later taps never run", async () => {
    const runner = new Runner();
    const called: string[] = [];
    for (const name of ["skips", "handles", "never"]) {
      runner.use(
        plugin(name, (r) =>
          r.hooks.execute.tapPromise(name, async () => {
            called.push(name);
            if (name === "skips") return undefined;
            return { kind: "case", actual: name, comparisons: [] };
          }),
        ),
      );
    }
    const outcome = await runner.hooks.execute.promise({ work: fakeCase, input: [] });
    expect(outcome).toMatchObject({ actual: "handles" });
    expect(called).toEqual(["skips", "handles"]);
  });

  it("compare is a bail keyed by mode: undefined means 'not my mode'", () => {
    const runner = new Runner();
    runner.hooks.compare.tap("upper", (req) =>
      req.mode === "upper" ? { equal: String(req.actual).toUpperCase() === req.expected } : undefined,
    );
    expect(runner.hooks.compare.call({ mode: "upper", options: {}, expected: "HI", actual: "hi", field: "stdout" })).toEqual({
      equal: true,
    });
    expect(runner.hooks.compare.call({ mode: "other", options: {}, expected: "HI", actual: "hi", field: "stdout" })).toBeUndefined();
  });
});

describe("claims", () => {
  it("rejects a second plugin claiming the same deliverable type, naming both plugins", () => {
    const runner = new Runner();
    runner.use(plugin("first-fn", (r) => r.claim("deliverable", "function", "first-fn")));
    const second = plugin("second-fn", (r) => r.claim("deliverable", "function", "second-fn"));
    expect(() => runner.use(second)).toThrow(PluginConflictError);
    try {
      runner.use(second);
    } catch (error) {
      const e = error as PluginConflictError;
      expect(e.code).toBe("plugin_conflict");
      expect(e.message).toContain('"first-fn"');
      expect(e.message).toContain('"second-fn"');
      expect(e.message).toContain('deliverable type "function"');
    }
  });

  it("lets one plugin claim the same name twice and different kinds share a name", () => {
    const runner = new Runner();
    runner.claim("engine", "gemini", "p");
    runner.claim("engine", "gemini", "p");
    runner.claim("compare", "gemini", "q");
    expect(runner.claims("engine")).toHaveLength(1);
    expect(runner.claimant("compare", "gemini")?.plugin).toBe("q");
  });

  it("requireClaim names what is missing and lists what is available", () => {
    const runner = new Runner();
    runner.claim("engine", "gemini", "@skillrig/engine-gemini");
    expect(() => runner.requireClaim("engine", "claude")).toThrow(/no plugin handles engine "claude"; available: "gemini"/);
    try {
      runner.requireClaim("engine", "claude");
    } catch (error) {
      expect((error as SkillrigError).code).toBe("engine_not_found");
    }
  });
});

describe("sandbox hook", () => {
  it("asks the sandbox hook once per purpose and reuses the instance", () => {
    const runner = new Runner();
    let made = 0;
    runner.hooks.sandbox.tap("s", () => {
      made++;
      return { name: "s", isolation: "none", warnings: [] } as never;
    });
    const a = runner.sandbox({ purpose: "function" });
    const b = runner.sandbox({ purpose: "function" });
    expect(a).toBe(b);
    expect(made).toBe(1);
  });

  it("says which purpose had no sandbox when no plugin provides one", () => {
    expect(() => new Runner().sandbox({ purpose: "script" })).toThrow(/no sandbox plugin is configured to run script code/);
  });
});
