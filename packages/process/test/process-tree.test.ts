import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { processesUsing } from "@skillrig/process";

test("processesUsing finds a live process working in a folder, and not once it has exited", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "process-tree-")));
  const child = spawn("sleep", ["30"], { cwd: dir, stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  expect(processesUsing(dir).map((p) => p.pid)).toContain(child.pid);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  expect(processesUsing(dir)).toEqual([]);
});
