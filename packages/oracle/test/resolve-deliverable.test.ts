import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveDeliverable } from "@skillrig/oracle";
import { writeTree } from "./helpers.js";

const fn = { deliverable_type: "function", entrypoint: "f" };
const script = { deliverable_type: "script", entrypoint: "tool.py" };

describe("resolveDeliverable", () => {
  it("function: a .py file, or the one module of a folder (tests and packaging files do not count)", async () => {
    const dir = writeTree({ "one/sol.py": "", "one/test_sol.py": "", "one/conftest.py": "", "one/__init__.py": "", "one/README.md": "" });
    expect(await resolveDeliverable("one/sol.py", fn, dir)).toEqual({
      dir: join(dir, "one"),
      entryFile: join(dir, "one/sol.py"),
      entryOnly: true,
    });
    expect(await resolveDeliverable("one", fn, dir)).toEqual({ dir: join(dir, "one"), entryFile: join(dir, "one/sol.py") });
  });

  it("function: several modules take solution.py, else it is an error naming them", async () => {
    const dir = writeTree({ "a/solution.py": "", "a/helpers.py": "", "b/x.py": "", "b/y.py": "", "c/notes.txt": "" });
    expect((await resolveDeliverable("a", fn, dir)).entryFile).toBe(join(dir, "a/solution.py"));
    await expect(resolveDeliverable("b", fn, dir)).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("it has 2: x.py, y.py"),
    });
    await expect(resolveDeliverable("c", fn, dir)).rejects.toThrow(/must hold exactly one Python module .*it has none/);
    await expect(resolveDeliverable("c/notes.txt", fn, dir)).rejects.toThrow(/is not a Python file/);
  });

  it("script/cli: the file itself, or a folder holding the entrypoint", async () => {
    const dir = writeTree({ "d/tool.py": "", "d/lib.py": "", "e/other.py": "" });
    expect(await resolveDeliverable("d", script, dir)).toEqual({ dir: join(dir, "d"), entryFile: join(dir, "d/tool.py") });
    expect(await resolveDeliverable("e/other.py", script, dir)).toEqual({
      dir: join(dir, "e"),
      entryFile: join(dir, "e/other.py"),
      entryOnly: true,
    });
    await expect(resolveDeliverable("e", script, dir)).rejects.toThrow(/deliverable folder e has no entrypoint file "tool.py"/);
    await expect(resolveDeliverable("d", { ...script, entrypoint: "../x.py" }, dir)).rejects.toMatchObject({
      code: "invalid_task",
      pointer: "/entrypoint",
    });
  });

  it("names a deliverable that does not exist", async () => {
    await expect(resolveDeliverable("nope", script, writeTree({}))).rejects.toMatchObject({
      code: "usage",
      field: "--deliverable",
      message: "deliverable nope does not exist",
    });
  });
});
