/**
 * The app's data in a bundle (`skillrig view --bundle`): no server, so the run routes of the view's API are
 * answered from the data data.js embedded (../../src/bundle-format.ts), eval and trend routes from the answers it
 * stored by URL, and a run's files become data: URLs.
 */
import { BUNDLE_GLOBAL, type BundleData } from "../../src/bundle-format.js";
import { when } from "./kit/format.js";

export function bundleOf(global: typeof globalThis): BundleData | undefined {
  const data = (global as unknown as Record<string, unknown>)[BUNDLE_GLOBAL] as BundleData | undefined;
  return data?.format === "skillrig-view-bundle" ? data : undefined;
}

function notInBundle(url: string): Error {
  return new Error(`${url} is not in this bundle (a static copy of chosen runs): open it with skillrig view`);
}

/** The answer the view server would give for `url`, from the bundle. */
export function bundleGet(bundle: BundleData, url: string): unknown {
  if (url === "/api/info")
    return { runs_dir: `a bundle of ${bundle.runs.length} run(s), written ${when(bundle.created_at)}`, server: null, bundle: true };
  if (url === "/api/runs") return { runs: bundle.runs.map((r) => r.record) };
  const match = /^\/api\/runs\/([^/]+)$/.exec(url);
  const run = match ? bundle.runs.find((r) => r.record.id === decodeURIComponent(match[1]!)) : undefined;
  if (run) return { record: run.record, report: run.report };
  // Eval iterations' pages and trends: the server's answers, stored by URL when the bundle was written.
  if (bundle.api && Object.hasOwn(bundle.api, url)) return bundle.api[url];
  throw notInBundle(url);
}

/** A file the pages open by its API URL (an eval run's output) as a data: URL; a missing one names itself. */
export function bundleApiFileUrl(bundle: BundleData, url: string, path: string): string {
  const file = bundle.api_files && Object.hasOwn(bundle.api_files, url) ? bundle.api_files[url] : undefined;
  if (!file) return `data:text/plain;charset=utf-8,${encodeURIComponent(`${path} is not in this bundle`)}`;
  return `data:${file.type};base64,${file.base64}`;
}

/** A run file as a data: URL (images shown, text read with dataUrlText, downloads); a missing one names itself. */
export function bundleFileUrl(bundle: BundleData, runId: string, path: string): string {
  const file = bundle.runs.find((r) => r.record.id === runId)?.files[path];
  if (!file) return `data:text/plain;charset=utf-8,${encodeURIComponent(`${path} is not in this bundle`)}`;
  return `data:${file.type};base64,${file.base64}`;
}

/** The text of a data: URL (base64 or percent-encoded), as UTF-8. */
export function dataUrlText(url: string): string {
  const comma = url.indexOf(",");
  const head = url.slice(5, comma);
  const body = url.slice(comma + 1);
  if (!head.endsWith(";base64")) return decodeURIComponent(body);
  const binary = atob(body);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
