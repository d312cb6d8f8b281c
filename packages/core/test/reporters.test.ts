import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { applyReporters, type ReporterRequest, Runner, type SkillrigError, type SkillrigPlugin } from "../src/index.js";

function request(scope: ReporterRequest["scope"]): ReporterRequest {
  return { scope, json: false, stdout: new PassThrough(), stderr: new PassThrough(), wrote: () => undefined };
}

/** A plugin offering `name`: it counts the reporters it made, each observing runEnd. */
function offering(name: string, made: Array<{ scope: string; ends: string[] }>): SkillrigPlugin {
  return {
    name: `${name}-plugin`,
    apply(runner) {
      runner.hooks.reporter.for(name).tap(`${name}-plugin`, (req) => {
        const record = { scope: req.scope, ends: [] as string[] };
        made.push(record);
        return {
          name: `${name}-reporter`,
          apply: (r) => r.hooks.runEnd.tap(`${name}-reporter`, (info) => void record.ends.push(info.kind)),
        };
      });
    },
  };
}

describe("reporters chosen by name through the reporter hook", () => {
  it("makes only the reporters asked for, once each, with the request; the one made observes the run", async () => {
    const runner = new Runner();
    const mine: Array<{ scope: string; ends: string[] }> = [];
    const other: Array<{ scope: string; ends: string[] }> = [];
    runner.use(offering("mine", mine)).use(offering("other", other));
    expect(runner.claimant("reporter", "mine")?.plugin).toBe("mine-plugin");
    applyReporters(runner, ["mine", "mine"], request("suite"));
    await runner.hooks.runEnd.promise({ kind: "suite", id: "suite", startedAt: new Date(), ok: true, durationMs: 1 });
    expect(mine).toEqual([{ scope: "suite", ends: ["suite"] }]);
    expect(other).toEqual([]);
  });

  it("an unknown name is a usage error naming it and what is offered, and nothing is made", () => {
    const runner = new Runner();
    const mine: Array<{ scope: string; ends: string[] }> = [];
    runner.use(offering("mine", mine));
    let error: SkillrigError | undefined;
    try {
      applyReporters(runner, ["mine", "nope", "nada"], request("task"));
    } catch (caught) {
      error = caught as SkillrigError;
    }
    expect(error?.code).toBe("usage");
    expect(error?.message).toBe('unknown reporter "nope", "nada"; available: mine');
    expect(error?.field).toBe("--reporter");
    expect(mine).toEqual([]);
  });

  it("two plugins offering one name is a plugin conflict", () => {
    const runner = new Runner();
    runner.use(offering("same", []));
    const second: SkillrigPlugin = { name: "second", apply: (r) => r.hooks.reporter.for("same").tap("second", () => undefined) };
    expect(() => runner.use(second)).toThrow(/reporter "same" is claimed by both plugin "same-plugin" and plugin "second"/);
  });
});
