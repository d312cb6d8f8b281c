/**
 * Files the runner reads from, or writes into, folders the agent could write: a symlink the agent left (to a file
 * only the runner can read, or a host file the runner would overwrite) is never followed, on the file itself or on
 * a folder on the way; FIFOs and hard links are not read. Real files, real links.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRunnerFolder, openForAgent, readAgentFile, removeAgentFile, writeRunnerFile } from "../src/agent-files.js";

function setUp() {
  const base = mkdtempSync(join(tmpdir(), "skillrig-agent-files-"));
  const agent = join(base, "workspace");
  const outside = join(base, "runner-only");
  mkdirSync(agent);
  mkdirSync(outside);
  writeFileSync(join(outside, "hidden-tests.json"), "HIDDEN-TESTS");
  return { agent, outside, secret: join(outside, "hidden-tests.json") };
}

describe("agent-written files", () => {
  it("reads a regular file; never a symlink, a file behind a symlinked folder, a FIFO or a hard link", () => {
    const { agent, outside, secret } = setUp();
    writeFileSync(join(agent, "answer.json"), '{"ok":true}');
    expect(readAgentFile(agent, join(agent, "answer.json"))).toBe('{"ok":true}');
    symlinkSync(secret, join(agent, "linked.json"));
    expect(readAgentFile(agent, join(agent, "linked.json"))).toBeUndefined();
    symlinkSync(outside, join(agent, ".skillrig"));
    expect(readAgentFile(agent, join(agent, ".skillrig", "hidden-tests.json"))).toBeUndefined();
    execFileSync("mkfifo", [join(agent, "fifo.json")]);
    expect(readAgentFile(agent, join(agent, "fifo.json"))).toBeUndefined();
    linkSync(secret, join(agent, "hard.json"));
    expect(readAgentFile(agent, join(agent, "hard.json"))).toBeUndefined();
    expect(readAgentFile(agent, join(agent, "missing.json"))).toBeUndefined();
  });

  it("writes through no symlink: a linked file or folder is refused and its target left as it was", () => {
    const { agent, outside, secret } = setUp();
    writeRunnerFile(agent, join(agent, "home", ".gemini", "settings.json"), "{}\n");
    expect(readFileSync(join(agent, "home", ".gemini", "settings.json"), "utf8")).toBe("{}\n");
    writeRunnerFile(agent, join(agent, "home", ".gemini", "settings.json"), "{}");
    expect(readFileSync(join(agent, "home", ".gemini", "settings.json"), "utf8")).toBe("{}");

    symlinkSync(secret, join(agent, "settings.json"));
    expect(() => writeRunnerFile(agent, join(agent, "settings.json"), "PWNED")).toThrow();
    symlinkSync(outside, join(agent, ".claude"));
    expect(() => writeRunnerFile(agent, join(agent, ".claude", "hidden-tests.json"), "PWNED")).toThrow(/symlink/);
    expect(() => makeRunnerFolder(agent, join(agent, ".claude", "skills"))).toThrow(/symlink/);
    expect(existsSync(join(outside, "skills"))).toBe(false);
    removeAgentFile(agent, join(agent, ".claude", "hidden-tests.json"));
    expect(readFileSync(secret, "utf8")).toBe("HIDDEN-TESTS");
    expect(lstatSync(join(agent, "settings.json")).isSymbolicLink()).toBe(true);
  });

  it("opens the job's uploads to the agent (a 0600 upload becomes readable), never through a symlink", () => {
    const { agent, secret } = setUp();
    const uploads = join(agent, "uploads");
    mkdirSync(join(uploads, "nested"), { recursive: true, mode: 0o700 });
    writeFileSync(join(uploads, "notes.txt"), "mine", { mode: 0o600 });
    writeFileSync(join(uploads, "nested", "data.csv"), "a,b", { mode: 0o600 });
    chmodSync(secret, 0o600);
    symlinkSync(secret, join(uploads, "link"));
    openForAgent(uploads);
    expect(lstatSync(join(uploads, "notes.txt")).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(uploads, "nested")).mode & 0o777).toBe(0o755);
    expect(lstatSync(join(uploads, "nested", "data.csv")).mode & 0o777).toBe(0o644);
    expect(lstatSync(secret).mode & 0o777).toBe(0o600);
    openForAgent(join(agent, "no-uploads"));
  });
});
