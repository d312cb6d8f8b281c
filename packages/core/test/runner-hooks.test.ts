import { describe, expect, it } from "vitest";
import { Runner, type SkillrigError, type SkillrigPlugin, type CaseWork, type CaseInputResolution } from "../src/index.js";

const fakeCase = { index: 0 } as unknown as CaseWork;

function plugin(name: string, apply: (runner: Runner) => void): SkillrigPlugin {
  return { name, apply };
}

describe("Runner hooks", () => {
  it("declares the hook points per flow, once, frozen", () => {
    const runner = new Runner();
    expect(Object.keys(runner.hooks.task).sort()).toEqual(
      ["caseResult", "compare", "deliverableFile", "execute", "resolveDeliverable", "resolveInput", "setUp", "start", "tearDown"].sort(),
    );
    expect(Object.keys(runner.hooks.job).sort()).toEqual(
      ["collectArtifacts", "event", "execute", "prepareRuntime", "renderPrompt", "resolveInput"].sort(),
    );
    expect(Object.keys(runner.hooks).sort()).toEqual(["assertion", "close", "job", "reporter", "runEnd", "sandbox", "task"].sort());
    for (const frozen of [runner.hooks, runner.hooks.task, runner.hooks.job]) expect(Object.isFrozen(frozen)).toBe(true);
  });

  it("task.resolveInput is a waterfall per deliverable type: taps refine in plugin order, other types' taps never run", async () => {
    const runner = new Runner();
    const order: string[] = [];
    runner.use(
      plugin("a", (r) =>
        r.hooks.task.resolveInput.for("function").tapPromise("a", async (res) => {
          order.push("a");
          return { ...res, value: [...(res.value as number[]), 1] };
        }),
      ),
    );
    runner.use(
      plugin("b", (r) =>
        r.hooks.task.resolveInput.for("function").tapPromise("b", async (res) => {
          order.push("b");
          return { ...res, value: [...(res.value as number[]), 2], violations: [{ message: "b saw it" }] };
        }),
      ),
    );
    runner.use(
      plugin("other", (r) =>
        r.hooks.task.resolveInput.for("script").tap("other", (res) => {
          order.push("other");
          return res;
        }),
      ),
    );
    const out: CaseInputResolution = await runner.hooks.task.resolveInput.for("function").promise({ value: [], violations: [] }, fakeCase);
    expect(order).toEqual(["a", "b"]);
    expect(out.value).toEqual([1, 2]);
    expect(out.violations).toEqual([{ message: "b saw it" }]);
  });

  it("task.execute is keyed by deliverable type, and tapping a type claims it for the plugin", async () => {
    const runner = new Runner();
    runner.use(plugin("fn", (r) => r.hooks.task.execute.for("function").tapPromise("fn", async () => ({ actual: "fn", comparisons: [] }))));
    runner.use(plugin("sh", (r) => r.hooks.task.execute.for("script").tapPromise("sh", async () => ({ actual: "sh", comparisons: [] }))));
    expect(await runner.hooks.task.execute.for("script").promise({ work: fakeCase, input: [] })).toMatchObject({ actual: "sh" });
    expect(runner.claimant("deliverable", "function")?.plugin).toBe("fn");
    expect(runner.claims("deliverable").map((c) => c.name)).toEqual(["function", "script"]);
    // Nothing taps a type nobody claimed: there is no hook to call until something asks for one.
    expect(runner.hooks.task.execute.get("cli")).toBeUndefined();
  });

  it("job.execute is keyed by engine name and claims it; a second plugin on the same engine is a conflict", () => {
    const runner = new Runner();
    runner.use(plugin("echo-a", (r) => r.hooks.job.execute.for("echo").tapPromise("echo-a", async () => ({ ok: true }))));
    expect(runner.claimant("engine", "echo")?.plugin).toBe("echo-a");
    const second = plugin("echo-b", (r) => r.hooks.job.execute.for("echo").tapPromise("echo-b", async () => ({ ok: true })));
    expect(() => runner.use(second)).toThrow(/engine "echo" is claimed by both plugin "echo-a" and plugin "echo-b"/);
  });

  it("task.compare is keyed by mode: each mode's tap sees only its own requests", () => {
    const runner = new Runner();
    const seen: string[] = [];
    runner.hooks.task.compare.for("upper").tap("upper", (req) => {
      seen.push(req.mode);
      return { equal: String(req.actual).toUpperCase() === req.expected };
    });
    expect(
      runner.hooks.task.compare.for("upper").call({ mode: "upper", options: {}, expected: "HI", actual: "hi", field: "stdout" }),
    ).toEqual({
      equal: true,
    });
    expect(runner.hooks.task.compare.get("other")).toBeUndefined();
    expect(seen).toEqual(["upper"]);
    expect(runner.claimant("compare", "upper")?.plugin).toBe("upper");
  });

  it("close runs the close hook once, however often it is called", async () => {
    const runner = new Runner();
    let closed = 0;
    runner.hooks.close.tapPromise("pool", async () => void closed++);
    await Promise.all([runner.close(), runner.close()]);
    await runner.close();
    expect(closed).toBe(1);
  });
});

describe("claims", () => {
  it("rejects a second plugin claiming the same deliverable type, naming both plugins", () => {
    const runner = new Runner();
    runner.use(plugin("first-fn", (r) => r.claim("deliverable", "function", "first-fn")));
    const second = plugin("second-fn", (r) => r.claim("deliverable", "function", "second-fn"));
    expect(() => runner.use(second)).toThrow(expect.objectContaining({ code: "plugin_conflict" }));
    try {
      runner.use(second);
    } catch (error) {
      const e = error as SkillrigError;
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
