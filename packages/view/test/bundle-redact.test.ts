/**
 * The bundle's path redactor (src/bundle-redact.ts): paths under the project become relative, the runs folder's too,
 * and a path under a private root (home, temporary folder, skillrig's install, the usual per-user roots) keeps only
 * its file name; system and sandbox paths, URLs and relative paths are left as they are.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pathRedactor, REDACTED, redactJson } from "../src/bundle-redact.js";

describe("pathRedactor", () => {
  const project = join(mkdtempSync(join(tmpdir(), "skillrig-redact-")), "proj");
  const runs = join(project, ".skillrig", "runs");
  const redact = pathRedactor({ projectDir: project, runsDir: runs, privateRoots: ["/opt/skillrig-install", tmpdir()] });

  it("makes a path under the project relative to it, the runs folder too", () => {
    expect(redact(`File "${project}/tasks/parse.py", line 4`)).toBe('File "tasks/parse.py", line 4');
    expect(redact(`cd ${project} && ls`)).toBe("cd . && ls");
    expect(redact(`${runs}/20261202T000000Z-test-x-abcdef/jobs/1/prompt.md`)).toBe(
      ".skillrig/runs/20261202T000000Z-test-x-abcdef/jobs/1/prompt.md",
    );
  });

  it("marks a path under a private root or a per-user root, keeping its file name", () => {
    expect(redact("/opt/skillrig-install/plugins/engine-gemini/dist/index.js")).toBe(`${REDACTED}/index.js`);
    expect(redact(`${tmpdir()}/skillrig-job-1/workspace/solution.py:3`)).toBe(`${REDACTED}/solution.py:3`);
    expect(redact('  File "/home/ann/.cache/x/lib.py", line 1')).toBe(`  File "${REDACTED}/lib.py", line 1`);
    expect(redact("/Users/bo/src/thing")).toBe(`${REDACTED}/thing`);
    expect(redact("see /root")).toBe(`see ${REDACTED}`);
    expect(redact("/home/ann")).toBe(REDACTED);
    // A sibling of the project in the temporary folder is not the project.
    expect(redact(`${project}-other/a.txt`)).toBe(`${REDACTED}/a.txt`);
  });

  it("keeps system and sandbox paths, URLs and relative paths", () => {
    for (const text of [
      '  File "/usr/lib/python3.12/json/decoder.py", line 337',
      "/workspace/solution.py",
      "http://127.0.0.1:8080/home/page",
      "outputs/tmp/report.md",
      "and/or",
    ])
      expect(redact(text)).toBe(text);
  });

  it("walks every string of a JSON value, keys too", () => {
    const value = { [`${project}/a`]: [`${project}/b`, 3, null, { c: "/home/x/y.txt" }], ok: true };
    expect(redactJson(value, redact)).toEqual({ a: ["b", 3, null, { c: `${REDACTED}/y.txt` }], ok: true });
  });
});
