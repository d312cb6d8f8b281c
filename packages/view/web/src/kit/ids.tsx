/** Dates and ids as every page shows them: one local date format, short ids with the full one on hover and a copy button. */
import { useState } from "preact/hooks";
import { when } from "./format.js";

/** A moment in the page's one date format; the exact ISO time on hover. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">–</span>;
  return (
    <time class="when" dateTime={iso} title={iso}>
      {when(iso)}
    </time>
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RUN_FOLDER = /^\d{8}T\d{6}Z-.*-([0-9a-f]{6})$/;

/**
 * An id short enough for a table cell: a job's UUID by its first 8 characters, a run folder
 * (`20261123T151237Z-test-oracle-receipt-parser-cdfe1b`) by its random tail, an eval iteration whole; anything else
 * of 24 characters or fewer as it is.
 */
export function shortId(id: string): string {
  if (UUID.test(id)) return id.slice(0, 8);
  const run = RUN_FOLDER.exec(id);
  if (run) return `…${run[1]}`;
  // An eval iteration (`eval-top-months/iteration-2`) reads best whole: its folder names the skill.
  if (/^[^/]+\/iteration-\d+$/.test(id)) return id;
  return id.length <= 24 ? id : `${id.slice(0, 10)}…${id.slice(-10)}`;
}

async function copyText(text: string): Promise<void> {
  // The Clipboard API needs a secure context; a bundle opened from some hosts is not one: select and copy instead.
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("the browser refused to copy");
}

/** A short id, the full one on hover (and for screen readers), and a button that copies the full one. */
export function ShortId({ id }: { id: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | undefined>();
  const copy = () =>
    copyText(id).then(
      () => setCopied("yes"),
      () => setCopied("no"),
    );
  return (
    <span class="short-id" data-id={id}>
      <code title={id} aria-label={id}>
        {shortId(id)}
      </code>
      <button type="button" class="copy" title={`copy ${id}`} aria-label={`copy id ${id}`} onClick={copy}>
        {copied === "yes" ? "copied" : copied === "no" ? "copy failed" : "copy"}
      </button>
    </span>
  );
}
