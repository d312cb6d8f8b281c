/**
 * What `withoutServerPaths` rewrites and what it leaves: the run folder becomes relative, the data folder and
 * skillrig's temp folders placeholders, on real folders (one reached through a symlink, as a data_dir may be);
 * neighbours with a longer name, other paths and the client's own case values are left as they are.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobFolders, withoutServerPaths } from "../src/server-paths.js";

describe("withoutServerPaths", () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "paths-test-")));
  const dataDir = join(base, "data");
  const runDir = join(dataDir, "runs", "job-1");
  mkdirSync(runDir, { recursive: true });
  const folders = jobFolders(runDir);

  it("makes run-folder paths relative, and names the data folder and skillrig's temp folders only by placeholder", () => {
    const value = {
      run_dir: runDir,
      artifacts: [{ path: `${runDir}/artifacts/report.txt` }],
      line: `echo engine working in ${runDir}/workspace`,
      other_job: `${dataDir}/runs/job-2/uploads`,
      snapshot: `python3 ${tmpdir()}/skillrig-script-Ab12/deliverable/x.py`,
      message: `failed at ${runDir}.`,
    };
    expect(withoutServerPaths(value, folders)).toEqual({
      run_dir: ".",
      artifacts: [{ path: "artifacts/report.txt" }],
      line: "echo engine working in workspace",
      other_job: "<data_dir>/runs/job-2/uploads",
      snapshot: "python3 <tmp>/skillrig-script-Ab12/deliverable/x.py",
      message: "failed at ..",
    });
  });

  it("leaves neighbours, unrelated paths and a case's input and expected as they are", () => {
    // A run folder's neighbour is another folder of the data folder: named by placeholder, not made relative.
    expect(withoutServerPaths(`${runDir}-old/file`, folders)).toBe("<data_dir>/runs/job-1-old/file");
    const value = {
      data_sibling: `${dataDir}2/x`,
      system: "/usr/bin/python3",
      own_tmp: `${tmpdir()}/mine/file`,
      cases: [{ input: { stdin: `${runDir}/x` }, expected: { stdout: `${tmpdir()}/skillrig-x\n` }, actual: `${runDir}/x` }],
    };
    expect(withoutServerPaths(value, folders)).toEqual({ ...value, cases: [{ ...value.cases[0], actual: "x" }] });
  });

  it("knows a data folder by both its given and its real path", () => {
    const link = join(base, "link");
    symlinkSync(dataDir, link);
    const viaLink = jobFolders(join(link, "runs", "job-1"));
    expect(withoutServerPaths([`${runDir}/a`, `${link}/runs/job-1/b`, `${dataDir}/c`], viaLink)).toEqual(["a", "b", "<data_dir>/c"]);
  });

  it("without a run folder (an error answer), rewrites the data folder and temp folders", () => {
    expect(withoutServerPaths({ error: { message: `ENOENT: open '${runDir}/result.json'` } }, { dataDir })).toEqual({
      error: { message: "ENOENT: open '<data_dir>/runs/job-1/result.json'" },
    });
  });
});
