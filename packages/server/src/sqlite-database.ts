/**
 * The few SQLite calls the server's store makes (prepare, run/get/all, exec, transactions, pragmas), as one small
 * interface with two drivers behind it: Node's built-in `node:sqlite` (Node 22.13+, nothing to install or compile)
 * and better-sqlite3 (a native module, for Node versions without `node:sqlite`). `openSqliteDatabase` picks the
 * driver once per process (`sqlite-driver.ts`); the store and its migrations see only this interface, so the same
 * SQL and the same tests run on both.
 */

/** A value SQLite stores: what a parameter may be bound to. Booleans and `undefined` are refused by both drivers. */
export type SqlValue = null | number | bigint | string | Uint8Array;

/** Positional values, or one object of named values (`@name` in the SQL, the key without the `@`). */
export type SqlParameters = Array<SqlValue | Record<string, SqlValue>>;

export interface SqliteStatement {
  /** Runs the statement; `changes` is the number of rows it inserted, updated or deleted. */
  run(...params: SqlParameters): { changes: number };
  /** The first row (an object keyed by column name), or undefined. The caller knows its shape, as with better-sqlite3. */
  get(...params: SqlParameters): unknown;
  /** Every row, objects keyed by column name. */
  all(...params: SqlParameters): unknown[];
}

export interface SqliteDatabase {
  /** `node:sqlite` or `better-sqlite3`: which driver opened this file. */
  readonly driver: SqliteDriverName;
  readonly isOpen: boolean;
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements that return nothing (DDL, a migration). */
  exec(sql: string): void;
  /**
   * `PRAGMA <pragma>` and the first column of its first row (`pragma("user_version")` -> 5,
   * `pragma("journal_mode = WAL")` -> "wal"), or undefined when it returns no row.
   */
  pragma(pragma: string): unknown;
  /**
   * Runs `body` in one transaction: committed when it returns, rolled back when it throws (the error is rethrown).
   * A transaction inside another is a savepoint of it, as better-sqlite3's `transaction()` does.
   */
  transaction<T>(body: () => T): T;
  close(): void;
}

export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

/** A driver: how to open a file, and what it is (for `skillrig serve`'s start line). */
export interface SqliteDriver {
  name: SqliteDriverName;
  /** The SQLite library's version (`sqlite_version()`), and the package's for better-sqlite3. */
  describe(): string;
  open(file: string): SqliteDatabase;
}
