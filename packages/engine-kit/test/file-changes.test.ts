import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileChangeTracker } from "@skillrig/engine-kit";

describe("fileChangeTracker: add or update, whenever the stream is read", () => {
  const dir = mkdtempSync(join(tmpdir(), "file-changes-"));

  it("a file the CLI already wrote when its tool call is read is new (add), not an update", () => {
    const files = fileChangeTracker();
    const path = join(dir, "written-before-read.txt");
    writeFileSync(path, "the CLI was quicker than the parser\n");
    const existed = files.existedBefore(path);
    expect(existed).toBe(false);
    expect(files.kind(path, existed)).toBe("add");
  });

  it("a file that was there before the turn is an update; a second write of a new file is an update", () => {
    const old = join(dir, "from-before.txt");
    writeFileSync(old, "before\n");
    // The turn starts a second later than the file's birth: it is older than the turn.
    const files = fileChangeTracker(Date.now() + 1000);
    expect(files.existedBefore(old)).toBe(true);
    expect(files.kind(old, true)).toBe("update");

    const fresh = join(dir, "not-yet-written.txt");
    expect(files.existedBefore(fresh)).toBe(false);
    expect(files.kind(fresh, false)).toBe("add");
    expect(files.existedBefore(fresh)).toBe(true);
    expect(files.kind(fresh, false)).toBe("update");
  });
});
