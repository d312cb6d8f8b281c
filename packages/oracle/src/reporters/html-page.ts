/**
 * The page every skillrig HTML report is (this package's `skillrig test` report, and @skillrig/solve's): one
 * self-contained document with its stylesheet inline, a header (title and a line under it) and the body. Everything
 * an agent produced or a task holds is untrusted text: it only ever enters a page through `escapeHtml`, in text and
 * in quoted attributes alike. Hand-written because the five characters below are the whole job and a report must not
 * depend on a templating engine's autoescape defaults.
 */
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text (or a value, as indented JSON) made safe for HTML text and quoted attributes. */
export function escapeHtml(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : (JSON.stringify(value, null, 2) ?? String(value));
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A safe fragment id for anchors: letters, digits, `-` and `_` only. */
export function anchorId(...parts: Array<string | number>): string {
  return parts.map((p) => String(p).replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.codePointAt(0)!.toString(16)}`)).join("--");
}

/** The reports' shared stylesheet: colours, header, tables, code blocks. A report adds its own rules after it. */
export const REPORT_CSS = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bg2:#f6f8fa}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:var(--bg2)}h1{margin:0 0 4px;font-size:20px}
main{padding:16px 24px;max-width:1400px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2)}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:var(--bg2);border:1px solid var(--line);padding:8px;overflow:auto;max-height:480px;white-space:pre-wrap;word-break:break-word;margin:4px 0}
`;

export interface HtmlPage {
  title: string;
  /** The line under the title (text, escaped here). */
  subtitle: string;
  /** The report's own CSS rules, after `REPORT_CSS`. */
  css: string;
  /** The main content, already HTML. */
  body: string;
  /** Inline script at the end of the body, when the page has one. */
  script?: string;
}

export function htmlPage(page: HtmlPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${REPORT_CSS}${page.css}</style>
</head>
<body>
<header>
<h1>${escapeHtml(page.title)}</h1>
<div class="muted">${escapeHtml(page.subtitle)}</div>
</header>
<main>
${page.body}
</main>
${page.script ? `<script>${page.script}</script>\n` : ""}</body>
</html>
`;
}
