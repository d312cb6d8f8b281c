/**
 * The SQLite store writes engine, log and case events in batches (one transaction per event-loop turn, or with
 * the job's next status change): what a reader, a live listener and a process killed with SIGKILL see of them.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { StoredEvent } from "../src/job-store.js";
import { openSqliteDatabase } from "../src/sqlite-driver.js";
import { SqliteJobStore } from "../src/sqlite-job-store.js";

const folders: string[] = [];
function newFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-sqlite-batching-"));
  folders.push(dir);
  return join(dir, "skillrig-server.sqlite");
}
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What another connection (another process, after a crash) reads from the file. */
function committedEvents(file: string): Array<{ seq: number; type: string }> {
  const db = openSqliteDatabase(file);
  try {
    return db.prepare("SELECT seq, type FROM events ORDER BY seq").all() as Array<{ seq: number; type: string }>;
  } finally {
    db.close();
  }
}

const job = (id: string) => ({
  id,
  tenant: "default",
  kind: "skill" as const,
  request: { skill_id: "demo", engine: "echo" },
  needs_upload: false,
  run_dir: `/runs/${id}`,
});
const nextTurn = () => new Promise((r) => setImmediate(r));

describe("the SQLite store's batched event writes", () => {
  it("commits the events of one turn in one batch, then tells listeners; a status change commits the pending ones first, in order", async () => {
    const file = newFile();
    const store = new SqliteJobStore(file);
    const heard: StoredEvent[][] = [];
    store.onCommitted((events) => heard.push([...events]));
    try {
      const { event: queued } = store.create(job("a")) as { event: StoredEvent };
      const first = store.appendEvent("a", "log", { line: "one" });
      const second = store.appendEvent("a", "engine", { type: "message" });
      expect([first.seq, second.seq]).toEqual([queued.seq + 1, queued.seq + 2]);
      // Numbered, not yet committed, and nobody was told.
      expect(committedEvents(file).map((e) => e.type)).toEqual(["status"]);
      expect(heard).toEqual([]);
      await nextTurn();
      expect(committedEvents(file).map((e) => e.seq)).toEqual([queued.seq, first.seq, second.seq]);
      expect(heard).toEqual([[first, second]]);

      const third = store.appendEvent("a", "log", { line: "three" });
      const claimed = store.claimNext()!;
      // The claim's transaction wrote the pending event before its own status event, and the listener heard of it
      // before claimNext returned (so a caller that publishes the status event publishes it after).
      expect(heard.at(-1)).toEqual([third]);
      expect(claimed.event.seq).toBe(third.seq + 1);
      expect(committedEvents(file).map((e) => e.type)).toEqual(["status", "log", "engine", "log", "status"]);
      // A reader of the log never misses an event that was handed out.
      const fourth = store.appendEvent("a", "log", { line: "four" });
      expect(store.eventsAfter("a", claimed.event.seq).map((e) => e.seq)).toEqual([fourth.seq]);
    } finally {
      store.close();
    }
  });

  it("numbers on from the file after a restart, even when the newest events were deleted (no seq is reused)", () => {
    const file = newFile();
    const store = new SqliteJobStore(file);
    store.create(job("a"));
    const last = store.appendEvent("a", "log", { line: "x" });
    store.close(); // close commits what is pending
    const db = openSqliteDatabase(file);
    db.prepare("DELETE FROM events WHERE seq = ?").run(last.seq);
    db.close();
    const reopened = new SqliteJobStore(file);
    try {
      expect(reopened.appendEvent("a", "log", { line: "y" }).seq).toBe(last.seq + 1);
    } finally {
      reopened.close();
    }
  });

  it("keeps every event of a finished turn when the process is killed with SIGKILL right after", async () => {
    const file = newFile();
    const built = resolve(fileURLToPath(import.meta.url), "..", "..", "dist", "sqlite-job-store.js");
    // A real process: it writes a job and three events, lets one turn pass (the batch commits), says so, then
    // appends one more and spins, so it dies before that one's turn ends.
    const script = `
      const { SqliteJobStore } = await import(${JSON.stringify(built)});
      const store = new SqliteJobStore(${JSON.stringify(file)});
      store.create({ id: "a", tenant: "default", kind: "skill", request: { skill_id: "demo", engine: "echo" }, needs_upload: false, run_dir: "/runs/a" });
      for (const n of [1, 2, 3]) store.appendEvent("a", "log", { n });
      setImmediate(() => {
        store.appendEvent("a", "log", { n: 4 });
        process.stdout.write("committed\\n");
        for (;;) {}
      });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((done, fail) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("committed") && done());
      child.once("exit", (code) => fail(new Error(`the writer exited with ${code} before it committed`)));
    });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    // The three of the finished turn are on disk; the fourth was never committed, and was never published either.
    expect(committedEvents(file).map((e) => e.type)).toEqual(["status", "log", "log", "log"]);
  });
});
