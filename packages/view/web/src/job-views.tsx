/** A skill job's view (recorded, or on the jobs server): what went in, the prompt, the events, the output, the artifacts. */
import { useEffect, useState } from "preact/hooks";
import { getText, runFileUrl } from "./api.js";
import {
  ArtifactPreview,
  bytesText,
  Code,
  Json,
  Loading,
  Section,
  Status,
  Timeline,
  type TimelineEvent,
  useFetch,
  usd,
} from "./kit/index.js";

interface JobResultLike {
  job_id?: string;
  skill_id?: string;
  engine?: string;
  status?: string;
  output?: unknown;
  prompt?: string;
  error?: { code: string; message: string };
  artifacts?: Array<{ field: string; filename: string; relativePath: string; role: string; bytes: number }>;
  warnings?: string[];
  usage?: {
    inputTokens?: number;
    cachedInputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    modelCalls?: number;
    model?: string;
    source?: string;
  };
  cost_usd?: number | "unpriced";
}

/** The job's usage record in one line: cost, tokens (cached and reasoning), calls, model, and where the figures came from. */
function UsageLine({ r }: { r: JobResultLike }) {
  const u = r.usage;
  if (!u && r.cost_usd === undefined) return null;
  return (
    <p class="muted" data-field="usage">
      cost <strong data-field="cost">{usd(r.cost_usd)}</strong>
      {u?.inputTokens !== undefined ? ` · ${u.inputTokens} tokens in${u.cachedInputTokens ? ` (${u.cachedInputTokens} cached)` : ""}` : ""}
      {u?.outputTokens !== undefined ? `, ${u.outputTokens} out${u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : ""}` : ""}
      {u?.modelCalls !== undefined ? ` · ${u.modelCalls} model call(s)` : ""}
      {u?.model ? ` · ${u.model}` : ""}
      {u?.source
        ? ` · measured by ${u.source === "proxy" ? "the metering proxy" : u.source === "engine" ? "the engine's own report" : "nothing"}`
        : ""}
    </p>
  );
}

/** What a recorded job's run.json says went in: the request as sent and, once resolved, what the job really got. */
interface RunJson {
  request?: { input?: Record<string, unknown>; parameter?: Record<string, unknown>; files?: Record<string, string>; prompt?: string };
  uploads?: Record<string, { original_name?: string }>;
  resolved?: {
    input: Record<string, unknown>;
    parameter: Record<string, unknown>;
    files: Array<{ field: string; name: string; bytes: number; path: string }>;
  };
}

/** A job's inputs as the page shows them: files by name and size, inline values, parameters with their defaults. */
export interface JobInputs {
  files: Array<{ field: string; name: string; bytes?: number; url?: string }>;
  values: Record<string, unknown>;
  parameter: Record<string, unknown>;
  /** True when the parameters are the resolved ones (defaults applied), not only the request's. */
  resolved: boolean;
  /** A plain Agent Skill's job: the request's prompt, its whole input (docs/skills.md). */
  prompt?: string;
}

function inputsOf(runId: string, meta: RunJson): JobInputs {
  if (meta.resolved) {
    const files = meta.resolved.files.map((f) => ({ ...f, url: runFileUrl(runId, f.path, true) }));
    const fileFields = new Set(files.map((f) => f.field));
    const values = Object.fromEntries(Object.entries(meta.resolved.input).filter(([k]) => !fileFields.has(k)));
    return { files, values, parameter: meta.resolved.parameter, resolved: true, ...promptOf(meta) };
  }
  // A job recorded before run.json kept what was resolved (or one refused before that step): the request alone.
  const files = Object.keys(meta.request?.files ?? {}).map((field) => ({
    field,
    name: meta.uploads?.[field]?.original_name ?? field,
    url: runFileUrl(runId, `uploads/${field}`, true),
  }));
  return { files, values: meta.request?.input ?? {}, parameter: meta.request?.parameter ?? {}, resolved: false, ...promptOf(meta) };
}

function promptOf(meta: RunJson): { prompt?: string } {
  return typeof meta.request?.prompt === "string" ? { prompt: meta.request.prompt } : {};
}

/** A recorded skill job: what went in (run.json), the prompt, the events, the output and the artifacts. */
export function SkillRunView({ runId, result }: { runId: string; result: Record<string, unknown> }) {
  const r = result as JobResultLike;
  const meta = useFetch<RunJson>(runFileUrl(runId, "run.json"));
  const [events, setEvents] = useState<TimelineEvent[] | undefined>();
  useEffect(() => {
    getText(runFileUrl(runId, "logs/events.jsonl")).then(
      (text) =>
        setEvents(
          text
            .split("\n")
            .filter(Boolean)
            .flatMap((line) => {
              try {
                return [JSON.parse(line) as TimelineEvent];
              } catch {
                return [];
              }
            }),
        ),
      () => setEvents([]),
    );
  }, [runId]);
  return (
    <JobDetail
      result={r}
      inputs={meta.data ? inputsOf(runId, meta.data) : undefined}
      events={events}
      artifactUrl={(a, dl) => runFileUrl(runId, a.relativePath, dl)}
    />
  );
}

function InputsSection({ inputs }: { inputs: JobInputs | undefined }) {
  if (!inputs) return <p class="muted">not available</p>;
  const values = Object.entries(inputs.values);
  return (
    <>
      {inputs.files.length > 0 ? (
        <ul class="input-files">
          {inputs.files.map((f) => (
            <li key={f.field} data-field={f.field}>
              <code>{f.field}</code>: {f.url ? <a href={f.url}>{f.name}</a> : f.name}
              {f.bytes !== undefined ? <span class="muted"> ({bytesText(f.bytes)})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {inputs.prompt !== undefined ? (
        <div data-field="prompt-input">
          <h4>prompt (a plain skill's task, as the agent got it)</h4>
          <Code code={inputs.prompt} language="markdown" />
        </div>
      ) : null}
      {values.length > 0 ? (
        <Json value={inputs.values} />
      ) : inputs.files.length === 0 && inputs.prompt === undefined ? (
        <p class="muted">no inputs</p>
      ) : null}
    </>
  );
}

export function JobDetail({
  result: r,
  inputs,
  events,
  artifactUrl,
}: {
  result: JobResultLike;
  inputs?: JobInputs;
  events?: TimelineEvent[];
  artifactUrl: (a: NonNullable<JobResultLike["artifacts"]>[number], download: boolean) => string;
}) {
  return (
    <>
      <p>
        skill <strong>{r.skill_id}</strong> with engine {r.engine}: <Status status={r.status ?? "unknown"} />
      </p>
      <UsageLine r={r} />
      {r.error ? (
        <p class="error">
          {r.error.code}: {r.error.message}
        </p>
      ) : null}
      {(r.warnings ?? []).map((w) => (
        <p class="warning" key={w}>
          warning: {w}
        </p>
      ))}
      <div class="grid2">
        <Section title="inputs">
          <InputsSection inputs={inputs} />
        </Section>
        <Section title={inputs?.resolved ? "parameters (defaults applied)" : "parameters"}>
          {!inputs ? <p class="muted">not available</p> : <Json value={inputs.parameter} />}
        </Section>
      </div>
      <Section title="rendered prompt" open={false}>
        <Code code={r.prompt ?? "(not recorded)"} language="markdown" />
      </Section>
      <Section title={`events${events ? ` (${events.length})` : ""}`}>
        {events ? <Timeline events={events} /> : <Loading what="events" />}
      </Section>
      <Section title="output">{r.output === undefined ? <p class="muted">no output</p> : <Json value={r.output} />}</Section>
      <Section title={`artifacts (${r.artifacts?.length ?? 0})`}>
        {(r.artifacts ?? []).length === 0 ? <p class="muted">no artifacts</p> : null}
        {(r.artifacts ?? []).map((a) => (
          <ArtifactPreview key={a.field} name={a.filename} url={artifactUrl(a, false)} downloadUrl={artifactUrl(a, true)} />
        ))}
      </Section>
    </>
  );
}
