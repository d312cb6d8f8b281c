/**
 * What every table of the view can do: sort by a column (click its header: ascending, then descending), search
 * and filter, and export the rows as shown (filtered and sorted) as CSV or JSON, built in the browser. The sort,
 * the search and the filters live in the hash's query (`#/run/<id>?cases.sort=time&cases.dir=desc`), so a link
 * reproduces the table as it was seen.
 */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";

export interface Column<T> {
  /** The column's id: in the hash query and as the export's key. */
  key: string;
  label: string;
  /** What the column sorts, searches and exports by. */
  value: (row: T) => string | number | null | undefined;
  /** How a cell shows (default: the value). */
  render?: (row: T) => ComponentChildren;
  num?: boolean;
}

function queryOf(hash: string): URLSearchParams {
  const at = hash.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : hash.slice(at + 1));
}

/**
 * One value of the hash's query, and a setter that rewrites it in place (`replaceState`: no new history entry,
 * no hashchange, so the page keeps its state and scroll). An empty value or the default drops the key.
 */
export function useHashParam(name: string, fallback = ""): [string, (value: string) => void] {
  const [value, setValue] = useState(() => queryOf(location.hash).get(name) ?? fallback);
  useEffect(() => {
    const onChange = () => setValue(queryOf(location.hash).get(name) ?? fallback);
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, [name, fallback]);
  const set = useCallback(
    (next: string) => {
      const hash = location.hash;
      const at = hash.indexOf("?");
      const path = at < 0 ? hash : hash.slice(0, at);
      const query = queryOf(hash);
      if (next === "" || next === fallback) query.delete(name);
      else query.set(name, next);
      const text = query.toString();
      history.replaceState(history.state, "", `${location.pathname}${location.search}${path || "#/"}${text ? `?${text}` : ""}`);
      setValue(next);
    },
    [name, fallback],
  );
  return [value, set];
}

export interface TableView {
  sort: string;
  dir: "asc" | "desc";
  search: string;
  onSort: (key: string) => void;
  setSearch: (text: string) => void;
}

/** The sort and search of the table `id` (its keys in the hash: `<id>.sort`, `<id>.dir`, `<id>.q`). */
export function useTableView(id: string): TableView {
  const [sort, setSort] = useHashParam(`${id}.sort`);
  const [dir, setDir] = useHashParam(`${id}.dir`, "asc");
  const [search, setSearch] = useHashParam(`${id}.q`);
  // One object per state, so a memo over the rows can depend on the view alone.
  return useMemo(
    (): TableView => ({
      sort,
      dir: dir === "desc" ? "desc" : "asc",
      search,
      setSearch,
      onSort: (key: string) => {
        if (sort === key) setDir(dir === "asc" ? "desc" : "asc");
        else {
          setSort(key);
          setDir("asc");
        }
      },
    }),
    [sort, dir, search, setSort, setDir, setSearch],
  );
}

function compareValues(a: string | number | null | undefined, b: string | number | null | undefined): number {
  // Missing values last, whichever the direction.
  if (a === null || a === undefined || a === "") return b === null || b === undefined || b === "" ? 0 : 1;
  if (b === null || b === undefined || b === "") return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: "base" });
}

/** The rows as the table shows them: those matching the search (any column's value), sorted by the view's column. */
export function viewRows<T>(rows: T[], columns: Column<T>[], view: TableView): T[] {
  const q = view.search.trim().toLowerCase();
  const found =
    q === ""
      ? rows
      : rows.filter((r) =>
          columns.some((c) =>
            String(c.value(r) ?? "")
              .toLowerCase()
              .includes(q),
          ),
        );
  const column = columns.find((c) => c.key === view.sort);
  if (!column) return found;
  const sign = view.dir === "desc" ? -1 : 1;
  return found
    .map((row, i) => ({ row, i }))
    .sort((x, y) => {
      const a = column.value(x.row);
      const b = column.value(y.row);
      const missing = (v: unknown) => v === null || v === undefined || v === "";
      // Missing values stay last in both directions; ties keep the report's order.
      if (missing(a) || missing(b)) return compareValues(a, b) || x.i - y.i;
      return sign * compareValues(a, b) || x.i - y.i;
    })
    .map((x) => x.row);
}

/** A header that sorts its column: `aria-sort` says how, the button says what a click does. */
export function SortHeader<T>({ column, view }: { column: Column<T>; view: TableView }) {
  const active = view.sort === column.key;
  const sorted = active ? (view.dir === "asc" ? "ascending" : "descending") : "none";
  return (
    <th class={column.num ? "num" : undefined} aria-sort={sorted} data-column={column.key}>
      <button type="button" class="sort" onClick={() => view.onSort(column.key)}>
        {column.label}
        <span aria-hidden="true" class="sort-mark">
          {active ? (view.dir === "asc" ? " ▲" : " ▼") : ""}
        </span>
      </button>
    </th>
  );
}

export function SearchBox({ view, placeholder, name }: { view: TableView; placeholder: string; name: string }) {
  return (
    <label>
      search{" "}
      <input
        type="search"
        value={view.search}
        placeholder={placeholder}
        name={name}
        onInput={(e) => view.setSearch((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}

function csvCell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The rows as CSV (RFC 4180: a header line, fields quoted when they hold a comma, a quote or a line break). */
export function toCsv<T>(rows: T[], columns: Column<T>[]): string {
  const lines = [columns.map((c) => csvCell(c.label)).join(",")];
  for (const r of rows) lines.push(columns.map((c) => csvCell(c.value(r))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** The rows as JSON: one object per row, keyed by the columns' ids. */
export function toJsonRows<T>(rows: T[], columns: Column<T>[]): string {
  return `${JSON.stringify(
    rows.map((r) => Object.fromEntries(columns.map((c) => [c.key, c.value(r) ?? null]))),
    null,
    2,
  )}\n`;
}

function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once it started; the URL is only needed for the click.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** CSV and JSON downloads of the rows as shown. */
export function ExportButtons<T>({ name, rows, columns }: { name: string; rows: T[]; columns: Column<T>[] }) {
  return (
    <span class="export">
      export{" "}
      <button type="button" class="chip" data-export="csv" onClick={() => download(`${name}.csv`, toCsv(rows, columns), "text/csv")}>
        CSV
      </button>{" "}
      <button
        type="button"
        class="chip"
        data-export="json"
        onClick={() => download(`${name}.json`, toJsonRows(rows, columns), "application/json")}
      >
        JSON
      </button>
    </span>
  );
}
