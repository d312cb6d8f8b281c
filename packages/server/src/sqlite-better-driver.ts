/**
 * The better-sqlite3 driver, for a Node without `node:sqlite` (Node 20, 22 before 22.13). better-sqlite3 is a
 * native module and an optional peer of the server: it is loaded here only when this driver is chosen, so a
 * project on Node 22.13+ neither installs nor compiles it, and a copy built for another Node (its
 * NODE_MODULE_VERSION differs) is never touched there.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteDriver, SqliteStatement } from "./sqlite-database.js";

const require = createRequire(import.meta.url);

/** The driver; throws better-sqlite3's own error when the package is missing or its native build does not load here. */
export function loadBetterSqliteDriver(): SqliteDriver {
  const Database = require("better-sqlite3") as typeof BetterSqlite3;
  // Opening a database is what loads the native build: a module compiled for another Node fails here, not later.
  const probe = new Database(":memory:");
  const sqliteVersion = (probe.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v;
  probe.close();
  const packageVersion = (require("better-sqlite3/package.json") as { version: string }).version;
  return {
    name: "better-sqlite3",
    describe: () => `better-sqlite3 ${packageVersion} (Node ${process.version}, SQLite ${sqliteVersion})`,
    open: (file) => new BetterSqliteDatabase(new Database(file)),
  };
}

class BetterSqliteDatabase implements SqliteDatabase {
  readonly driver = "better-sqlite3" as const;
  readonly #db: BetterSqlite3.Database;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  get isOpen(): boolean {
    return this.#db.open;
  }

  prepare(sql: string): SqliteStatement {
    const statement = this.#db.prepare(sql);
    return {
      run: (...params) => ({ changes: statement.run(...params).changes }),
      get: (...params) => statement.get(...params),
      all: (...params) => statement.all(...params),
    };
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(pragma: string): unknown {
    return this.#db.pragma(pragma, { simple: true });
  }

  transaction<T>(body: () => T): T {
    return this.#db.transaction(body)();
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}
