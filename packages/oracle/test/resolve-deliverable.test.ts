import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveDeliverable } from "@skillrig/oracle";
import { makeRunner, writeTree } from "./helpers.js";

// The function type's own rule (a .py file or a folder of one module) is its plugin's: plugins/deliverable-function's
// deliverable-path test. Here: the oracle's rule, for types whose plugin has none (script, cli).
const runner = makeRunner();
const script = { deliverable_type: "script", entrypoint: "tool.py" };

describe("resolveDeliverable", () => {
  it("script/cli: the file itself, or a folder holding the entrypoint", async () => {
    const dir = writeTree({ "d/tool.py": "", "d/lib.py": "", "e/other.py": "" });
    expect(await resolveDeliverable(runner, "d", script, dir)).toEqual({ dir: join(dir, "d"), entryFile: join(dir, "d/tool.py") });
    expect(await resolveDeliverable(runner, "e/other.py", script, dir)).toEqual({
      dir: join(dir, "e"),
      entryFile: join(dir, "e/other.py"),
      entryOnly: true,
    });
    await expect(resolveDeliverable(runner, "e", script, dir)).rejects.toThrow(/deliverable folder e has no entrypoint file "tool.py"/);
    await expect(resolveDeliverable(runner, "d", { ...script, entrypoint: "../x.py" }, dir)).rejects.toMatchObject({
      code: "invalid_task",
      pointer: "/entrypoint",
    });
  });

  it("names a deliverable that does not exist", async () => {
    await expect(resolveDeliverable(runner, "nope", script, writeTree({}))).rejects.toMatchObject({
      code: "usage",
      field: "--deliverable",
      message: "deliverable nope does not exist",
    });
  });
});
