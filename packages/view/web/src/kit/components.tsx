/** The pieces every page uses: statuses, code, diffs, case tables, timelines, artifact previews. */
import { diffWordsWithSpace } from "diff";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import MarkdownIt from "markdown-it";
import { useEffect, useMemo, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { getText } from "../api.js";
import { asText, clock, duration, isObject } from "./format.js";
import { Status, toneOf } from "./status.js";
import { type Column, ExportButtons, SearchBox, SortHeader, useHashParam, useTableView, viewRows } from "./table-view.js";

// Only the grammars deliverables and transcripts use: the whole highlight.js would quadruple the bundle.
hljs.registerLanguage("python", python);
hljs.registerLanguage("json", json);
hljs.registerLanguage("bash", bash);
hljs.registerLanguage("markdown", markdown);

// Raw HTML off: an agent's Markdown renders as Markdown, never as markup of this page (links are checked too).
const md = new MarkdownIt({ html: false, linkify: false });

export function Code({ code, language }: { code: string; language?: string }) {
  const html = useMemo(() => {
    const lang = language && hljs.getLanguage(language) ? language : undefined;
    return lang ? hljs.highlight(code, { language: lang, ignoreIllegals: true }).value : undefined;
  }, [code, language]);
  // Code blocks scroll, so they take focus: a keyboard user scrolls them with the arrow keys.
  return html !== undefined ? (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: highlight.js escapes the source; the HTML holds only its own spans.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <pre class="code hljs" tabIndex={0} dangerouslySetInnerHTML={{ __html: html }} />
  ) : (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <pre class="code" tabIndex={0}>
      {code}
    </pre>
  );
}

export function Json({ value }: { value: unknown }) {
  return <Code code={asText(value)} language={typeof value === "string" ? undefined : "json"} />;
}

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => md.render(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it with html off escapes raw HTML and refuses script links.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Expected against actual, word by word: removed words struck through, added ones marked. */
export function WordDiff({ expected, actual }: { expected: unknown; actual: unknown }) {
  const parts = useMemo(() => diffWordsWithSpace(asText(expected), asText(actual)), [expected, actual]);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard.
    <pre class="code diff" tabIndex={0} aria-label="word-level diff of expected against actual">
      {parts.map((p, i) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: diff parts have no identity but their place; the list is rebuilt whole.
        p.added ? <ins key={i}>{p.value}</ins> : p.removed ? <del key={i}>{p.value}</del> : <span key={i}>{p.value}</span>,
      )}
    </pre>
  );
}

export function Section({ title, children, open = true }: { title: string; children: ComponentChildren; open?: boolean }) {
  return (
    <details class="section" open={open}>
      <summary>{title}</summary>
      <div class="section-body">{children}</div>
    </details>
  );
}

export interface CaseLike {
  name: string;
  index?: number;
  status: string;
  duration_ms?: number;
  input?: unknown;
  expected?: unknown;
  actual?: unknown;
  message?: string | null;
  diff?: string;
  details?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The traceback from wherever the deliverable put it: on the case, in an exception object, or in details. */
export function tracebackOf(c: CaseLike): string | undefined {
  const candidates = [c.traceback, isObject(c.exception) ? c.exception.traceback : undefined, c.details?.traceback];
  if (isObject(c.details?.exception)) candidates.push((c.details.exception as Record<string, unknown>).traceback);
  return candidates.find((t): t is string => typeof t === "string" && t !== "");
}

function detailText(c: CaseLike, key: string): string | undefined {
  const v = c.details?.[key] ?? c[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * A case that stopped before it gave a value (an error, a timeout, a limit, an invalid test): what stopped it, from
 * the exception the deliverable raised or the grader's message; undefined for a case that returned something.
 */
export function stoppedBy(c: CaseLike): string | undefined {
  const tone = toneOf(c.status);
  if (tone === "passed" || tone === "failed" || (c.actual !== null && c.actual !== undefined)) return undefined;
  const exception = isObject(c.details?.exception) ? (c.details.exception as Record<string, unknown>) : undefined;
  const type = c.details?.exception_type ?? exception?.type;
  const text = c.message ?? (typeof exception?.message === "string" ? exception.message : undefined);
  if (typeof type === "string" && type !== "") return text && !text.startsWith(type) ? `${type}: ${text}` : (text ?? type);
  return text ?? `${c.status}: the case stopped without a value`;
}

/** The third column of a case: what it returned, or, for a case that stopped, the exception that stopped it. */
function ActualOrStop({ c }: { c: CaseLike }) {
  const stop = stoppedBy(c);
  if (stop === undefined)
    return (
      <div>
        <h4>actual</h4>
        <Json value={c.actual} />
      </div>
    );
  return (
    <div>
      <h4>
        what stopped it <Status status={c.status} />
      </h4>
      <p class="error case-stopped" data-field="stopped-by">
        {stop}
      </p>
      <p class="muted">no value: the case did not return</p>
    </div>
  );
}

export function CaseDetail({ c }: { c: CaseLike }) {
  const traceback = tracebackOf(c);
  const stdout = detailText(c, "stdout") ?? detailText(c, "prints");
  const stderr = detailText(c, "stderr");
  const files = c.details?.files ?? c.files;
  const shown = new Set(["traceback", "stdout", "stderr", "prints", "files", "exception", "exception_type"]);
  const rest = Object.fromEntries(Object.entries(c.details ?? {}).filter(([k]) => !shown.has(k)));
  return (
    <div class="case-detail">
      {c.message && stoppedBy(c) === undefined ? <p class="message">{c.message}</p> : null}
      <div class="grid3">
        <div>
          <h4>input</h4>
          {"input" in c ? <Json value={c.input} /> : <p class="muted">not in this report</p>}
        </div>
        <div>
          <h4>expected</h4>
          <Json value={c.expected} />
        </div>
        <ActualOrStop c={c} />
      </div>
      {c.status !== "passed" && c.actual !== undefined && c.actual !== null ? (
        <>
          <h4>diff (word level)</h4>
          <WordDiff expected={c.expected} actual={c.actual} />
        </>
      ) : null}
      {traceback ? (
        <>
          <h4>traceback</h4>
          <Code code={traceback} language="python" />
        </>
      ) : null}
      {stdout ? (
        <>
          <h4>stdout</h4>
          <pre class="code">{stdout}</pre>
        </>
      ) : null}
      {stderr ? (
        <>
          <h4>stderr</h4>
          <pre class="code">{stderr}</pre>
        </>
      ) : null}
      {files !== undefined ? (
        <>
          <h4>files</h4>
          <Json value={files} />
        </>
      ) : null}
      {Object.keys(rest).length > 0 ? (
        <>
          <h4>details</h4>
          <Json value={rest} />
        </>
      ) : null}
    </div>
  );
}

const CASE_COLUMNS: Column<CaseLike & { at: number }>[] = [
  { key: "index", label: "#", num: true, value: (c) => c.index ?? c.at },
  { key: "name", label: "case", value: (c) => c.name },
  { key: "status", label: "status", value: (c) => c.status, render: (c) => <Status status={c.status} /> },
  { key: "time", label: "time", num: true, value: (c) => c.duration_ms, render: (c) => duration(c.duration_ms) },
  { key: "message", label: "message", value: (c) => c.message ?? "" },
];

/**
 * The cases of one graded deliverable: a filter by status, a search, sortable columns and an export of the rows as
 * shown; each case opens to its detail. `id` names the table in the hash query (two tables on a page need two).
 */
export function CaseTable({ cases, exportName = "cases", id = "cases" }: { cases: CaseLike[]; exportName?: string; id?: string }) {
  const [filter, setFilter] = useHashParam(`${id}.status`, "all");
  const view = useTableView(id);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const counts = useMemo(() => {
    const m = new Map<string, number>();
    for (const c of cases) m.set(c.status, (m.get(c.status) ?? 0) + 1);
    return m;
  }, [cases]);
  const shown = useMemo(() => {
    const placed = cases.map((c, at) => ({ ...c, at }));
    const kept =
      filter === "all"
        ? placed
        : filter === "not-passed"
          ? placed.filter((c) => c.status !== "passed")
          : placed.filter((c) => c.status === filter);
    return viewRows(kept, CASE_COLUMNS, view);
  }, [cases, filter, view]);
  const key = (c: CaseLike & { at: number }) => `${c.index ?? c.at}:${c.name}`;
  const toggle = (k: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  const filters: Array<[string, string]> = [
    ["all", `all ${cases.length}`],
    ["not-passed", `not passed ${cases.length - (counts.get("passed") ?? 0)}`],
    ...[...counts.entries()].map(([s, n]): [string, string] => [s, `${s} ${n}`]),
  ];
  return (
    <div class="cases">
      <div class="filters">
        {/* biome-ignore lint/a11y/useSemanticElements: a fieldset would draw a box around a row of chips; the role says the same. */}
        <div class="chips" role="group" aria-label="filter cases by status">
          {filters.map(([value, label]) => (
            <button
              type="button"
              class="chip"
              aria-pressed={filter === value}
              data-filter={value}
              onClick={() => setFilter(value)}
              key={value}
            >
              {label}
            </button>
          ))}
        </div>
        <SearchBox view={view} placeholder="case name, message" name={`${id}-search`} />
        <ExportButtons name={exportName} rows={shown} columns={CASE_COLUMNS} />
      </div>
      <div class="scroll">
        <table class="table">
          <thead>
            <tr>
              {CASE_COLUMNS.map((c) => (
                <SortHeader key={c.key} column={c} view={view} />
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((c) => {
              const k = key(c);
              const expanded = open.has(k);
              return [
                <tr key={k} class="case-row" data-status={c.status} data-case={c.name}>
                  <td class="num">{c.index ?? c.at}</td>
                  <td>
                    <button type="button" class="link" aria-expanded={expanded} onClick={() => toggle(k)}>
                      {c.name}
                    </button>
                  </td>
                  <td>
                    <Status status={c.status} />
                  </td>
                  <td class="num">{duration(c.duration_ms)}</td>
                  <td class="clip">{c.message ?? ""}</td>
                </tr>,
                expanded ? (
                  <tr key={`${k}-detail`} class="case-detail-row">
                    <td colSpan={5}>
                      <CaseDetail c={c} />
                    </td>
                  </tr>
                ) : null,
              ];
            })}
          </tbody>
        </table>
      </div>
      {shown.length === 0 ? <p class="muted">no case matches</p> : null}
    </div>
  );
}

export interface TimelineEvent {
  at?: string;
  type: string;
  [key: string]: unknown;
}

function eventSummary(e: TimelineEvent): { label: string; text: string; extra?: unknown } {
  switch (e.type) {
    case "message":
      return { label: String(e.role ?? "message"), text: String(e.text ?? "") };
    case "tool_call":
      return { label: "tool call", text: `${e.tool}${e.status ? ` (${e.status})` : ""}`, extra: e.args };
    case "tool_result":
      return { label: "tool result", text: `${e.tool ?? ""} ${e.status ?? ""}`.trim(), extra: e.output };
    case "file_change":
      return { label: "file", text: `${e.kind} ${e.path}` };
    case "usage":
      return { label: "usage", text: `${e.inputTokens ?? "?"} tokens in, ${e.outputTokens ?? "?"} out${e.model ? ` (${e.model})` : ""}` };
    case "status":
      return { label: "status", text: `${e.status}${e.message ? `: ${e.message}` : ""}${e.reason ? ` (${e.reason})` : ""}` };
    case "log":
      return { label: `log ${e.stream ?? ""}`.trim(), text: String(e.line ?? "") };
    case "case":
      return { label: "case", text: `${e.name}: ${e.status}${e.message ? ` - ${e.message}` : ""}` };
    default:
      return { label: e.type, text: "", extra: e };
  }
}

/**
 * Per event with a time (`at`): the time since the previous event that has one and since the first. A stream's
 * events carry ISO times with milliseconds; an event without one (a solve transcript's) gets none.
 */
export function eventTimes(events: TimelineEvent[]): Array<{ sinceStart: number; sincePrevious: number } | undefined> {
  let first: number | undefined;
  let previous: number | undefined;
  return events.map((e) => {
    const at = typeof e.at === "string" ? Date.parse(e.at) : Number.NaN;
    if (!Number.isFinite(at)) return undefined;
    first ??= at;
    const out = { sinceStart: at - first, sincePrevious: at - (previous ?? at) };
    previous = at;
    return out;
  });
}

/** An agent's transcript or a job's events, in order: messages, tool calls (arguments on demand), usage. */
export function Timeline({ events }: { events: TimelineEvent[] }) {
  const merged = useMemo(() => {
    // Streamed assistant deltas read as one message.
    const out: TimelineEvent[] = [];
    for (const e of events) {
      const last = out[out.length - 1];
      if (e.type === "message" && e.delta && last?.type === "message" && last.delta && last.role === e.role) {
        out[out.length - 1] = { ...last, text: `${last.text}${e.text}` };
      } else out.push(e);
    }
    return out;
  }, [events]);
  const times = useMemo(() => eventTimes(merged), [merged]);
  if (merged.length === 0) return <p class="muted">no events</p>;
  const usage = merged.filter((e) => e.type === "usage");
  const tokensIn = usage.reduce((s, e) => s + (Number(e.inputTokens) || 0), 0);
  const tokensOut = usage.reduce((s, e) => s + (Number(e.outputTokens) || 0), 0);
  return (
    <div>
      <p class="muted">
        {merged.length} event(s)
        {usage.length > 0 ? `; ${tokensIn} tokens in, ${tokensOut} out` : ""}
      </p>
      <ol class="timeline">
        {merged.map((e, i) => {
          const s = eventSummary(e);
          const t = times[i];
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: events only ever append; their place is their identity.
            <li key={i} class={`ev ev-${e.type}`} data-since-start={t?.sinceStart} data-since-previous={t?.sincePrevious}>
              <span class="ev-label">{s.label}</span>
              {e.at ? (
                <time class="muted" dateTime={e.at} title={e.at}>
                  {clock(e.at)}
                </time>
              ) : null}
              {t ? (
                <span class="muted ev-times" title="time since the previous event · since the first">
                  {" "}
                  +{duration(t.sincePrevious)} · at {duration(t.sinceStart)}
                </span>
              ) : null}
              <div class="ev-text">{s.text}</div>
              {s.extra !== undefined && s.extra !== null ? (
                <details>
                  <summary>details</summary>
                  <Json value={s.extra} />
                </details>
              ) : null}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

const IMAGE = /\.(png|jpe?g|gif|webp|svg)$/i;
const TEXT = /\.(txt|md|json|jsonl|csv|log|py|xml|html|ya?ml|toml|sh)$/i;

/** One artifact: shown in place (text, Markdown, image) and downloadable. */
export function ArtifactPreview({ name, url, downloadUrl }: { name: string; url: string; downloadUrl: string }) {
  const [text, setText] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [shown, setShown] = useState(false);
  const image = IMAGE.test(name);
  const textual = TEXT.test(name);
  useEffect(() => {
    if (!shown || image || !textual || text !== undefined) return;
    getText(url).then(setText, (e: Error) => setError(e.message));
  }, [shown, url, image, textual, text]);
  return (
    <div class="artifact" data-artifact={name}>
      <div class="artifact-head">
        <strong>{name}</strong>
        {image || textual ? (
          <button type="button" class="chip" aria-expanded={shown} onClick={() => setShown(!shown)}>
            {shown ? "hide" : "preview"}
          </button>
        ) : null}
        <a class="chip" href={downloadUrl} download={name}>
          download
        </a>
      </div>
      {shown && image ? <img src={url} alt={`artifact ${name}`} class="artifact-image" /> : null}
      {shown && error ? <p class="error">{error}</p> : null}
      {shown && text !== undefined ? (
        /\.md$/i.test(name) ? (
          <Markdown text={text} />
        ) : (
          <Code code={text} language={/\.json$/i.test(name) ? "json" : /\.py$/i.test(name) ? "python" : undefined} />
        )
      ) : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <output class="muted">loading {what}…</output>;
}

export function ErrorBox({ error }: { error: Error }) {
  return (
    <div class="error" role="alert">
      {error.message}
    </div>
  );
}
