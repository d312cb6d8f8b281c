/**
 * Talking to the view server: its own /api and the relayed jobs server under /api/server. In a bundle
 * (`skillrig view --bundle`: a static site that opens from disk), there is no server: data.js sets
 * `__SKILLRIG_BUNDLE__` before the app loads, and the run routes are answered from it (bundle.ts).
 */
import { bundleApiFileUrl, bundleFileUrl, bundleGet, bundleOf, dataUrlText } from "./bundle.js";

export interface RunRecord {
  id: string;
  kind: "test" | "solve" | "run" | "eval";
  name: string;
  engines: string[];
  started_at: string;
  duration_ms: number | null;
  status: "passed" | "failed" | "error" | "running";
  passed: number | null;
  total: number | null;
  pass_rate: number | null;
  report: string;
}

/** An error the API answered with: its code, message and, for schema violations, each pointer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly violations: Array<{ pointer?: string; message: string }> = [],
  ) {
    super(message);
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  const body = await response.json().catch(() => undefined);
  const e = body?.error;
  return new ApiError(
    response.status,
    e?.code ?? `http_${response.status}`,
    e?.message ?? `${response.status} ${response.statusText}`,
    e?.violations ?? [],
  );
}

/** The bundle the page was opened from, or undefined when a view server serves it. */
const bundle = bundleOf(globalThis);
export const isBundle = bundle !== undefined;

export async function getJson<T>(url: string): Promise<T> {
  if (url.startsWith("data:")) return JSON.parse(dataUrlText(url)) as T;
  if (bundle) return bundleGet(bundle, url) as T;
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export async function getText(url: string): Promise<string> {
  if (url.startsWith("data:")) return dataUrlText(url);
  if (bundle) return JSON.stringify(bundleGet(bundle, url));
  const response = await fetch(url);
  if (!response.ok) throw await errorOf(response);
  return response.text();
}

export async function postJson<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export async function postBytes<T>(url: string, bytes: Uint8Array, contentType: string): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": contentType },
    body: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: contentType }),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export function runFileUrl(runId: string, path: string, download = false): string {
  if (bundle) return bundleFileUrl(bundle, runId, path);
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  return `/api/runs/${encodeURIComponent(runId)}/files/${encoded}${download ? "?download=1" : ""}`;
}

/** The API of an eval folder (`<id>`), one of its iterations (`<n>`), and what is under it. */
export function evalUrl(id: string, n?: number, rest = ""): string {
  return `/api/evals/${encodeURIComponent(id)}${n === undefined ? "" : `/iterations/${n}${rest}`}`;
}

/** A file of an eval iteration (path relative to the iteration folder): the server sends it as text, or as a download. */
export function evalFileUrl(id: string, n: number, path: string, download = false): string {
  const encoded = path.split("/").map(encodeURIComponent).join("/");
  const url = evalUrl(id, n, `/files/${encoded}`);
  if (bundle) return bundleApiFileUrl(bundle, url, path);
  return `${url}${download ? "?download=1" : ""}`;
}

/** The trend of the runs like a test or solve run (same kind and name), or of an eval folder's iterations. */
export function trendUrl(of: "runs" | "evals", id: string): string {
  return `/api/trends/${of}/${encodeURIComponent(id)}`;
}

/** The page of an eval iteration record's id (`<folder>/iteration-<n>`). */
export function evalPageOf(recordId: string): string | undefined {
  const match = /^([^/]+)\/iteration-(\d+)$/.exec(recordId);
  return match ? `#/eval/${encodeURIComponent(match[1]!)}/${match[2]}` : undefined;
}
