/**
 * Which SQLite driver the server's store uses, chosen once per process: `node:sqlite` where Node has it (22.13+),
 * else better-sqlite3 (an optional peer, installed by the project only when its Node lacks `node:sqlite`).
 * `SKILLRIG_SQLITE_DRIVER=node:sqlite|better-sqlite3` asks for one and only that one (to compare them, or to keep
 * better-sqlite3 on a Node that has both). When none loads, the error names each driver and why it did not load.
 */
import { SkillrigError } from "@skillrig/core";
import { loadBetterSqliteDriver } from "./sqlite-better-driver.js";
import type { SqliteDatabase, SqliteDriver, SqliteDriverName } from "./sqlite-database.js";
import { loadNodeSqliteDriver } from "./sqlite-node-driver.js";

export const SQLITE_DRIVER_ENV = "SKILLRIG_SQLITE_DRIVER";

/** In the order they are tried. */
const DRIVERS: ReadonlyArray<{ name: SqliteDriverName; load: () => SqliteDriver; whyNot: (error: unknown) => string }> = [
  { name: "node:sqlite", load: loadNodeSqliteDriver, whyNot: nodeSqliteMissing },
  { name: "better-sqlite3", load: loadBetterSqliteDriver, whyNot: betterSqliteMissing },
];

let chosen: SqliteDriver | undefined;

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!.trim();
}

/** Node 22.13+ (and 23.4+) has node:sqlite without a flag. */
function nodeShipsSqlite(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

function nodeSqliteMissing(error: unknown): string {
  if ((error as { code?: unknown }).code === "ERR_UNKNOWN_BUILTIN_MODULE") {
    return nodeShipsSqlite()
      ? `turned off in this Node (${process.version}; --no-experimental-sqlite in its options or NODE_OPTIONS?)`
      : `not in this Node (${process.version}); it is built into Node 22.13 and newer (22.5 to 22.12 with --experimental-sqlite)`;
  }
  return firstLine(error);
}

function betterSqliteMissing(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === "MODULE_NOT_FOUND" && typeof message === "string" && message.includes("'better-sqlite3'")) {
    return "not installed";
  }
  if (code === "ERR_DLOPEN_FAILED" || (typeof message === "string" && message.includes("NODE_MODULE_VERSION"))) {
    return `installed, but its native build does not load in Node ${process.version} (it was built for another Node: npm rebuild better-sqlite3): ${firstLine(error)}`;
  }
  return firstLine(error);
}

function wanted(): ReadonlyArray<(typeof DRIVERS)[number]> {
  const asked = process.env[SQLITE_DRIVER_ENV];
  if (asked === undefined || asked === "") return DRIVERS;
  const driver = DRIVERS.find((d) => d.name === asked);
  if (!driver) {
    throw new SkillrigError(
      "invalid_config",
      `${SQLITE_DRIVER_ENV} must be ${DRIVERS.map((d) => `"${d.name}"`).join(" or ")} (or unset, to take the first that loads), not "${asked}"`,
      { field: SQLITE_DRIVER_ENV },
    );
  }
  return [driver];
}

/** The driver this process uses: the first of `node:sqlite`, better-sqlite3 that loads (or the one asked for). */
export function sqliteDriver(): SqliteDriver {
  if (chosen) return chosen;
  const candidates = wanted();
  const failures: Array<{ driver: SqliteDriverName; reason: string }> = [];
  for (const candidate of candidates) {
    try {
      chosen = candidate.load();
      return chosen;
    } catch (error) {
      failures.push({ driver: candidate.name, reason: candidate.whyNot(error) });
    }
  }
  const asked = candidates.length === 1 ? ` (${SQLITE_DRIVER_ENV}=${candidates[0]!.name})` : "";
  throw new SkillrigError(
    "plugin_not_found",
    `the jobs server's SQLite store has no driver that loads${asked}: ${failures.map((f) => `${f.driver}: ${f.reason}`).join("; ")}`,
    {
      hint:
        candidates.length === 1
          ? `unset ${SQLITE_DRIVER_ENV} to use whichever driver loads`
          : "run the server on Node 22.13 or newer (node:sqlite is built in, nothing to install), or on this Node install better-sqlite3 in the project: npm i -D better-sqlite3@^12",
      details: { drivers: failures },
    },
  );
}

/** Opens (or creates) `file` with the process's driver. */
export function openSqliteDatabase(file: string): SqliteDatabase {
  return sqliteDriver().open(file);
}
