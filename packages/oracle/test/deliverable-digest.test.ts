/**
 * A sample's identity for comparisons (deliverableDigest): the same program is the same digest wherever it lies,
 * another program another; what a hostile deliverable folder holds (a FIFO, a link to /etc/passwd, a cache folder)
 * neither hangs the digest nor is followed into it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deliverableDigest } from "../src/deliverable-digest.js";

const folder = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-digest-"));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
};

describe("deliverableDigest", () => {
  it("the same files anywhere are one digest; a changed byte or name is another", async () => {
    const a = folder({ "solution.py": "def f():\n    return 1\n", "lib/util.py": "X = 2\n" });
    const b = folder({ "solution.py": "def f():\n    return 1\n", "lib/util.py": "X = 2\n" });
    const digestA = await deliverableDigest({ dir: a, entryFile: join(a, "solution.py") });
    expect(digestA).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await deliverableDigest({ dir: b, entryFile: join(b, "solution.py") })).toBe(digestA);
    const c = folder({ "solution.py": "def f():\n    return 2\n", "lib/util.py": "X = 2\n" });
    expect(await deliverableDigest({ dir: c, entryFile: join(c, "solution.py") })).not.toBe(digestA);
    const d = folder({ "solution.py": "def f():\n    return 1\n", "lib/other.py": "X = 2\n" });
    expect(await deliverableDigest({ dir: d, entryFile: join(d, "solution.py") })).not.toBe(digestA);
    // A file given alone is that file only, whatever lies beside it.
    const alone = await deliverableDigest({ dir: a, entryFile: join(a, "solution.py"), entryOnly: true });
    expect(await deliverableDigest({ dir: c, entryFile: join(b, "solution.py"), entryOnly: true })).toBe(alone);
  });

  it("a FIFO, a link to /etc/passwd and a __pycache__ folder: no hang, nothing followed, caches left out", async () => {
    const plain = folder({ "solution.py": "print(1)\n" });
    const hostile = folder({ "solution.py": "print(1)\n", "__pycache__/solution.cpython-311.pyc": "junk" });
    execFileSync("mkfifo", [join(hostile, "pipe")]);
    symlinkSync("/etc/passwd", join(hostile, "passwd"));
    const digest = await deliverableDigest({ dir: hostile, entryFile: join(hostile, "solution.py") });
    expect(digest).toMatch(/^sha256:/);
    // The link counts as its text (it is part of the folder), never as /etc/passwd's content: change the target's
    // text and the digest changes; the FIFO and the cache add nothing.
    symlinkSync("/etc/passwd", join(plain, "passwd"));
    expect(await deliverableDigest({ dir: plain, entryFile: join(plain, "solution.py") })).toBe(digest);
  });

  it("a deliverable that cannot be read has no digest (null), it does not fail the run", async () => {
    expect(await deliverableDigest({ dir: "/nonexistent/skillrig", entryFile: "/nonexistent/skillrig/x.py" })).toBeNull();
  });
});
