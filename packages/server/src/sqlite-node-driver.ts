/**
 * The `node:sqlite` driver: SQLite built into Node (unflagged from Node 22.13 and in 23.4+/24), so the server
 * installs and starts with nothing compiled.
 *
 * Node still marks the module experimental and prints "ExperimentalWarning: SQLite is an experimental feature" the
 * first time it is loaded: on every `skillrig serve`, to users who did nothing wrong. The load below silences that
 * one warning, and only it (other warnings, and this one from anyone else's later load, are untouched: Node emits it
 * once per process, at the first load, which is this one).
 */
import { createRequire } from "node:module";
import type { SqlParameters, SqliteDatabase, SqliteDriver, SqliteStatement } from "./sqlite-database.js";

/** The part of `node:sqlite` used here (the installed @types/node may predate the module). */
interface NodeStatementSync {
  run(...params: SqlParameters): { changes: number | bigint };
  get(...params: SqlParameters): Record<string, unknown> | undefined;
  all(...params: SqlParameters): Array<Record<string, unknown>>;
  setAllowBareNamedParameters?(enabled: boolean): void;
}
interface NodeDatabaseSync {
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (file: string) => NodeDatabaseSync;
  StatementSync: { prototype: NodeStatementSync };
}

const require = createRequire(import.meta.url);

function isSqliteExperimentalWarning(warning: unknown, typeOrOptions: unknown): boolean {
  const type = typeof typeOrOptions === "string" ? typeOrOptions : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const text = warning instanceof Error ? warning.message : String(warning);
  const name = warning instanceof Error ? warning.name : type;
  return (name === "ExperimentalWarning" || type === "ExperimentalWarning") && text.startsWith("SQLite is an experimental feature");
}

/** `require("node:sqlite")` without its experimental warning. Throws Node's own error when the module is missing. */
function loadQuietly(): NodeSqliteModule {
  const emitWarning = process.emitWarning;
  process.emitWarning = function quietSqlite(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return require("node:sqlite") as NodeSqliteModule;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * The driver, or why it cannot be used here: the module is missing (Node before 22.13 without
 * `--experimental-sqlite`, or `--no-experimental-sqlite`), or too early a build to bind `@name` parameters by bare
 * name (Node 22.5).
 */
export function loadNodeSqliteDriver(): SqliteDriver {
  const sqlite = loadQuietly();
  if (typeof sqlite.StatementSync?.prototype?.setAllowBareNamedParameters !== "function") {
    throw new Error(`this Node (${process.version}) has an early node:sqlite that cannot bind named parameters by bare name`);
  }
  return {
    name: "node:sqlite",
    describe() {
      const db = new sqlite.DatabaseSync(":memory:");
      try {
        return `node:sqlite (Node ${process.version}, SQLite ${(db.prepare("SELECT sqlite_version() AS v").get() as { v: string }).v})`;
      } finally {
        db.close();
      }
    },
    open: (file) => new NodeSqliteDatabase(new sqlite.DatabaseSync(file)),
  };
}

class NodeSqliteDatabase implements SqliteDatabase {
  readonly driver = "node:sqlite" as const;
  readonly #db: NodeDatabaseSync;
  #open = true;
  /** Open transactions: 0 none, 1 a BEGIN, more are savepoints inside it. */
  #depth = 0;

  constructor(db: NodeDatabaseSync) {
    this.#db = db;
  }

  get isOpen(): boolean {
    return this.#open;
  }

  prepare(sql: string): SqliteStatement {
    const statement = this.#db.prepare(sql);
    return {
      run: (...params) => ({ changes: Number(statement.run(...params).changes) }),
      get: (...params) => statement.get(...params),
      all: (...params) => statement.all(...params),
    };
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  pragma(pragma: string): unknown {
    const row = this.#db.prepare(`PRAGMA ${pragma}`).get();
    return row === undefined ? undefined : Object.values(row)[0];
  }

  transaction<T>(body: () => T): T {
    const savepoint = this.#depth === 0 ? undefined : `skillrig_${this.#depth}`;
    this.#db.exec(savepoint ? `SAVEPOINT ${savepoint}` : "BEGIN");
    this.#depth++;
    try {
      const value = body();
      this.#db.exec(savepoint ? `RELEASE ${savepoint}` : "COMMIT");
      return value;
    } catch (error) {
      try {
        this.#db.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : "ROLLBACK");
      } catch {
        // SQLite already rolled the transaction back (it does on some errors, such as a full disk): nothing to undo.
      }
      throw error;
    } finally {
      this.#depth--;
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#db.close();
    this.#open = false;
  }
}
