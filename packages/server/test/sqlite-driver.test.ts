/**
 * The SQLite driver interface the store is written against, on the driver this Node picks: node:sqlite on Node
 * 22.13+, better-sqlite3 before it. This file also runs under Node 22 (sqlite-on-node22.test.ts), so both drivers
 * are held to the same calls: named and positional parameters, row counts, pragmas, transactions that commit,
 * roll back and nest.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SqliteDatabase } from "../src/sqlite-database.js";
import { openSqliteDatabase, sqliteDriver } from "../src/sqlite-driver.js";

const folders: string[] = [];
const open: SqliteDatabase[] = [];
function newDatabase(): SqliteDatabase {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-sqlite-driver-"));
  folders.push(dir);
  const db = openSqliteDatabase(join(dir, "test.sqlite"));
  open.push(db);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER)");
  return db;
}
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const names = (db: SqliteDatabase) =>
  db
    .prepare("SELECT name FROM t ORDER BY id")
    .all()
    .map((r) => (r as { name: string }).name);

/** node:sqlite from Node 22.13 (and 23.4, 24); an earlier Node has only better-sqlite3. */
function nodeHasSqlite(): boolean {
  const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

describe("the SQLite driver", () => {
  it("is node:sqlite where Node has it, else better-sqlite3, and says which versions it runs", () => {
    const driver = sqliteDriver();
    expect(driver.name).toBe(nodeHasSqlite() ? "node:sqlite" : "better-sqlite3");
    expect(driver.describe()).toContain(`Node ${process.version}, SQLite 3.`);
    expect(newDatabase().driver).toBe(driver.name);
  });

  it("binds named (@name, bare keys) and positional parameters, counts changed rows, and reads rows as plain values", () => {
    const db = newDatabase();
    const insert = db.prepare("INSERT INTO t (name, n) VALUES (@name, @n)");
    expect(insert.run({ name: "a", n: 1 }).changes).toBe(1);
    insert.run({ name: "b", n: null });
    db.prepare("INSERT INTO t (name, n) VALUES (?, ?)").run("c", 3);
    expect(db.prepare("UPDATE t SET n = n + 10 WHERE n IS NOT NULL").run().changes).toBe(2);
    expect(db.prepare("SELECT name, n FROM t WHERE name = ?").get("b")).toEqual({ name: "b", n: null });
    expect(db.prepare("SELECT name FROM t WHERE name = ?").get("nobody")).toBeUndefined();
    expect(db.prepare("SELECT name, n FROM t ORDER BY id").all()).toEqual([
      { name: "a", n: 11 },
      { name: "b", n: null },
      { name: "c", n: 13 },
    ]);
    expect(db.prepare("UPDATE t SET n = 0 WHERE name = 'a' RETURNING n").get()).toEqual({ n: 0 });
  });

  it("reads and sets pragmas as single values", () => {
    const db = newDatabase();
    expect(db.pragma("user_version")).toBe(0);
    db.pragma("user_version = 7");
    expect(db.pragma("user_version")).toBe(7);
    expect(db.pragma("journal_mode = WAL")).toBe("wal");
  });

  it("commits a transaction that returns, rolls back one that throws (rethrowing its error), and nests as savepoints", () => {
    const db = newDatabase();
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    expect(
      db.transaction(() => {
        insert.run("kept");
        return "value";
      }),
    ).toBe("value");
    expect(() =>
      db.transaction(() => {
        insert.run("undone");
        throw new Error("body failed");
      }),
    ).toThrow("body failed");
    expect(names(db)).toEqual(["kept"]);
    db.transaction(() => {
      insert.run("outer");
      expect(() =>
        db.transaction(() => {
          insert.run("inner");
          throw new Error("inner failed");
        }),
      ).toThrow("inner failed");
      db.transaction(() => insert.run("inner kept"));
    });
    expect(names(db)).toEqual(["kept", "outer", "inner kept"]);
    // A failed statement inside rolls the whole transaction back, and the connection is usable afterwards.
    expect(() =>
      db.transaction(() => {
        insert.run("before the failure");
        db.prepare("INSERT INTO t (id, name) VALUES (1, 'duplicate id')").run();
      }),
    ).toThrow(/UNIQUE/);
    expect(names(db)).toEqual(["kept", "outer", "inner kept"]);
  });

  it("reports whether it is open, and closes once", () => {
    const db = newDatabase();
    expect(db.isOpen).toBe(true);
    db.close();
    expect(db.isOpen).toBe(false);
    db.close();
    expect(() => db.prepare("SELECT 1")).toThrow();
  });
});
