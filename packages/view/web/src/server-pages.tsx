/** Pages over a jobs server (skillrig serve), reached through the view server's relay at /api/server. */
import { inputFieldsOf, inputSourceOf } from "@skillrig/skills/protocol";
import { zipSync } from "fflate";
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ApiError, getJson, postBytes, postJson } from "./api.js";
import { JobDetail, type JobInputs } from "./job-views.js";
import {
  CaseTable,
  type CaseLike,
  duration,
  ErrorBox,
  isObject,
  Loading,
  ShortId,
  shortId,
  Status,
  type TimelineEvent,
  useFetch,
  When,
} from "./kit/index.js";
import { TaskVerdict, type TestReport } from "./task-views.js";

/** A finished oracle run's or solve attempt's cases by outcome (the server's `summary`; null otherwise). */
interface JobSummary {
  total: number;
  passed: number;
  failed: number;
  errored: number;
  invalid: number;
}

interface JobView {
  id: string;
  kind: "skill" | "oracle" | "solve";
  summary?: JobSummary | null;
  status: string;
  skill_id: string | null;
  engine: string | null;
  created_at: string;
  duration_ms: number | null;
  reason?: string | null;
  error?: { code: string; message: string } | null;
  /** A skill job's resolved inputs (GET /v1/jobs/{id} only; null until resolved, and for graded jobs). */
  inputs?: ServerJobInputs | null;
}

/** What the server says a skill job really got: its run.json `resolved`, files by name and size. */
interface ServerJobInputs {
  input: Record<string, unknown>;
  parameter: Record<string, unknown>;
  files: Array<{ field: string; name: string; size: number }>;
}

/** The server's inputs as the recorded job page shows them (no link: the server does not serve a job's uploads). */
function inputsOfServerJob(inputs: ServerJobInputs | null | undefined): JobInputs | undefined {
  if (!inputs) return undefined;
  const fileFields = new Set(inputs.files.map((f) => f.field));
  return {
    files: inputs.files.map((f) => ({ field: f.field, name: f.name, bytes: f.size })),
    values: Object.fromEntries(Object.entries(inputs.input).filter(([k]) => !fileFields.has(k))),
    parameter: inputs.parameter,
    resolved: true,
  };
}

interface SkillSummary {
  id: string;
  name?: string;
  description?: string;
  engines: string[];
  /** "plain": a plain Agent Skill, whose job is a prompt (no input or parameter schema). */
  kind?: "plain" | "runner";
}

const TERMINAL = new Set(["succeeded", "failed", "canceled"]);

interface SsePayload {
  seq: number;
  at: string;
  type: string;
  data: Record<string, unknown>;
}

/** Follows a job's events; the stream ends on its own after the terminal status. */
function followJob(id: string, onEvent: (payload: SsePayload) => void): () => void {
  const source = new EventSource(`/api/server/jobs/${encodeURIComponent(id)}/events`);
  const handler = (m: MessageEvent) => {
    try {
      const payload = JSON.parse(m.data) as SsePayload;
      onEvent(payload);
      if (payload.type === "status" && TERMINAL.has(String(payload.data.status))) source.close();
    } catch {
      // A line that is not JSON is not an event of this API.
    }
  };
  for (const type of ["status", "engine", "log", "case"]) source.addEventListener(type, handler as EventListener);
  // A dropped stream reconnects on its own with Last-Event-ID; the server replays what was missed.
  return () => source.close();
}

export function ServerHome() {
  const skills = useFetch<{ skills: SkillSummary[] }>("/api/server/skills");
  const [jobs, setJobs] = useState<JobView[] | undefined>();
  const [error, setError] = useState<Error | undefined>();
  useEffect(() => {
    getJson<{ jobs: JobView[] }>("/api/server/jobs?limit=100").then((r) => setJobs(r.jobs), setError);
  }, []);
  // Jobs still moving are followed live, so their status changes without a reload.
  const movingKey = (jobs ?? [])
    .filter((j) => !TERMINAL.has(j.status))
    .map((j) => j.id)
    .join(",");
  useEffect(() => {
    const moving = movingKey === "" ? [] : movingKey.split(",");
    const stops = moving.slice(0, 20).map((id) =>
      followJob(id, (p) => {
        if (p.type !== "status") return;
        setJobs((prev) => prev?.map((j) => (j.id === id ? { ...j, status: String(p.data.status) } : j)));
      }),
    );
    return () => {
      for (const stop of stops) stop();
    };
  }, [movingKey]);
  return (
    <main>
      <p>
        <a href="#/">← runs</a>
      </p>
      <h1>Jobs server</h1>
      <h2>Skills</h2>
      {skills.error ? <ErrorBox error={skills.error} /> : !skills.data ? <Loading what="skills" /> : null}
      <ul class="skills">
        {(skills.data?.skills ?? []).map((s) => (
          <li key={s.id}>
            <strong>{s.name ?? s.id}</strong> <code>{s.id}</code> <span class="muted">{s.description}</span>{" "}
            <a href={`#/server/new/${encodeURIComponent(s.id)}`}>new job</a>
          </li>
        ))}
      </ul>
      <h2>Jobs</h2>
      {error ? <ErrorBox error={error} /> : !jobs ? <Loading what="jobs" /> : null}
      {jobs ? (
        <div class="scroll">
          <table class="table">
            <thead>
              <tr>
                <th>job</th>
                <th>kind</th>
                <th>skill</th>
                <th>engine</th>
                <th>created</th>
                <th>status</th>
                <th class="num">duration</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id} data-job={j.id}>
                  <td>
                    <a href={`#/server/job/${encodeURIComponent(j.id)}`} title={j.id}>
                      {shortId(j.id)}
                    </a>
                  </td>
                  <td>{j.kind}</td>
                  <td>{j.skill_id ?? "–"}</td>
                  <td>{j.engine ?? "–"}</td>
                  <td>
                    <When iso={j.created_at} />
                  </td>
                  <td>
                    <Status status={j.status} />
                    {j.summary ? (
                      <span class="muted job-verdict">
                        {" "}
                        {j.summary.passed}/{j.summary.total} passed
                      </span>
                    ) : null}
                  </td>
                  <td class="num">{duration(j.duration_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {jobs.length === 0 ? <p class="muted">no jobs yet</p> : null}
        </div>
      ) : null}
    </main>
  );
}

export function ServerJob({ id }: { id: string }) {
  const [job, setJob] = useState<JobView | undefined>();
  const [events, setEvents] = useState<TimelineEvent[]>([]);
  const [result, setResult] = useState<Record<string, unknown> | undefined>();
  const [inputs, setInputs] = useState<ServerJobInputs | null | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const base = `/api/server/jobs/${encodeURIComponent(id)}`;
  useEffect(() => {
    // The stream can say the job ended before the job's first answer arrives (a fast job); that answer is then
    // older than the stream, and the stream, closed on the final status, would never correct it.
    let streamed: string | undefined;
    getJson<JobView>(base).then((answer) => {
      setJob(streamed !== undefined && TERMINAL.has(streamed) ? { ...answer, status: streamed } : answer);
      setInputs((prev) => prev ?? answer.inputs);
    }, setError);
    setInputs(undefined);
    setEvents([]);
    return followJob(id, (p) => {
      const event: TimelineEvent =
        p.type === "engine" ? { at: p.at, ...(p.data as { type: string }) } : { at: p.at, ...p.data, type: p.type };
      setEvents((prev) => [...prev, event]);
      if (p.type !== "status") return;
      const status = String(p.data.status);
      streamed = status;
      setJob((prev) => (prev ? { ...prev, status } : prev));
    });
  }, [id, base]);
  const finished = job !== undefined && TERMINAL.has(job.status);
  useEffect(() => {
    if (!finished) return;
    getJson<Record<string, unknown>>(`${base}/result`).then(setResult, (e: Error) =>
      setResult({ error: { code: (e as ApiError).code, message: e.message } }),
    );
    // The inputs are resolved once the job runs: a page opened before that asks again now that it has finished.
    getJson<JobView>(base).then(
      (answer) => setInputs((prev) => prev ?? answer.inputs),
      () => undefined,
    );
  }, [finished, base]);
  const cancel = () => postJson(`${base}/cancel`, {}).catch(setError);
  return (
    <main>
      <p>
        <a href="#/server">← jobs server</a>
      </p>
      <h1>
        job <ShortId id={id} /> {job ? <Status status={job.status} /> : null}
      </h1>
      {error ? <ErrorBox error={error} /> : null}
      {job ? (
        <p class="muted">
          {[job.kind, job.skill_id, job.engine].filter(Boolean).join(" · ")} · created <When iso={job.created_at} />
          {job.reason ? ` · ${job.reason}` : ""}
          {!finished ? (
            <>
              {" "}
              <button type="button" class="chip" onClick={cancel}>
                cancel
              </button>
            </>
          ) : null}
        </p>
      ) : (
        <Loading what="the job" />
      )}
      {job && job.kind !== "skill" ? (
        <GradedJob job={job} result={result} finished={finished} />
      ) : (
        <JobDetail
          result={{ ...(result ?? {}), skill_id: job?.skill_id ?? undefined, engine: job?.engine ?? undefined, status: job?.status }}
          inputs={inputsOfServerJob(inputs)}
          events={events}
          artifactUrl={(a, dl) => `${base}/artifacts/${encodeURIComponent(a.field)}${dl ? "?download=1" : ""}`}
        />
      )}
    </main>
  );
}

/**
 * A summary of cases from a graded result: the oracle run's own summary (a task report), else counted from its cases
 * (a solve attempt). Used when the server gives no `summary` (an older server).
 */
function summaryOfResult(result: Record<string, unknown> | undefined): JobSummary | undefined {
  if (!isObject(result)) return undefined;
  const s = result.summary;
  if (isObject(s) && typeof s.total === "number" && typeof s.passed === "number")
    return {
      total: s.total,
      passed: s.passed,
      failed: Number(s.failed) || 0,
      errored: Number(s.errored) || 0,
      invalid: Number(s.invalid) || 0,
    };
  if (!Array.isArray(result.cases)) return undefined;
  const cases = result.cases as CaseLike[];
  const count = (test: (status: string) => boolean) => cases.filter((c) => test(c.status)).length;
  return {
    total: cases.length,
    passed: count((x) => x === "passed"),
    failed: count((x) => x === "failed"),
    errored: count((x) => x !== "passed" && x !== "failed" && x !== "invalid_test_format"),
    invalid: count((x) => x === "invalid_test_format"),
  };
}

/**
 * An oracle run or a solve attempt on the server: the verdict from its cases (a job that ran fine but whose cases
 * did not all pass is `succeeded` as a job, never shown as a green "succeeded" alone) and its case table.
 */
function GradedJob({ job, result, finished }: { job: JobView; result: Record<string, unknown> | undefined; finished: boolean }) {
  if (!finished) return <p class="muted">the verdict comes when the run ends</p>;
  if (!result) return <Loading what="the result" />;
  const summary = job.summary ?? summaryOfResult(result);
  const error = isObject(result.error) ? (result.error as { code?: string; message?: string }) : undefined;
  const cases = Array.isArray(result.cases) ? (result.cases as CaseLike[]) : [];
  return (
    <>
      <p class="job-verdict-line">
        {typeof result.task_id === "string" ? (
          <>
            task <strong>{result.task_id}</strong>:{" "}
          </>
        ) : null}
        {summary ? (
          <TaskVerdict summary={summary as TestReport["summary"]} />
        ) : (
          <span class="muted">no verdict: the run graded no case</span>
        )}
      </p>
      {error ? (
        <p class="error">
          {error.code}: {error.message}
        </p>
      ) : null}
      <CaseTable cases={cases} exportName={`cases-${job.id.slice(0, 8)}`} />
    </>
  );
}

interface SkillDetail extends SkillSummary {
  file_inputs?: string[];
  schemas: { input: JsonSchema | null; parameter: JsonSchema | null };
}
// A type, not an interface: the protocol module reads it as a plain record of keywords.
type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
};

type Group = "input" | "parameter";
type FieldKind = "file" | "text" | "number" | "integer" | "boolean" | "enum" | "json";

/** How a field is edited. Which inputs are files is the protocol's answer (no x-input-source is a file). */
function kindOf(group: Group, schema: JsonSchema): FieldKind {
  if (group === "input" && inputSourceOf(schema) === "file") return "file";
  if (schema.enum) return "enum";
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "integer" || type === "number" || type === "boolean") return type;
  if (type === "string") return "text";
  return "json";
}

interface FieldProblem {
  pointer: string;
  message: string;
}

/** Turns the form's text into the values the schema asks for; a value that does not parse is a problem at its pointer. */
function readFields(group: Group, schema: JsonSchema | null, form: HTMLFormElement, problems: FieldProblem[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    const kind = kindOf(group, prop);
    if (kind === "file") continue;
    const element = form.elements.namedItem(`${group}.${name}`) as HTMLInputElement | null;
    if (!element) continue;
    if (kind === "boolean") {
      out[name] = element.checked;
      continue;
    }
    const raw = element.value;
    if (raw === "") continue;
    if (kind === "number" || kind === "integer") {
      const n = Number(raw);
      if (!Number.isFinite(n) || (kind === "integer" && !Number.isInteger(n)))
        problems.push({ pointer: `/${group}/${name}`, message: `not ${kind === "integer" ? "a whole number" : "a number"}: ${raw}` });
      else out[name] = n;
    } else if (kind === "json") {
      try {
        out[name] = JSON.parse(raw);
      } catch {
        problems.push({ pointer: `/${group}/${name}`, message: "not valid JSON" });
      }
    } else if (kind === "enum") {
      out[name] = prop.enum?.find((v) => String(v) === raw) ?? raw;
    } else out[name] = raw;
  }
  return out;
}

function Field({ group, name, schema, required }: { group: Group; name: string; schema: JsonSchema; required: boolean }) {
  const kind = kindOf(group, schema);
  const id = `f-${group}-${name}`;
  const fieldName = `${group}.${name}`;
  const label = (
    <label for={id}>
      {schema.title ?? name}
      {required ? <span aria-hidden="true"> *</span> : null}
      {schema.description ? <span class="muted"> {schema.description}</span> : null}
    </label>
  );
  let control: VNode;
  switch (kind) {
    case "file":
      control = <input id={id} name={fieldName} type="file" required={required} />;
      break;
    case "boolean":
      control = <input id={id} name={fieldName} type="checkbox" defaultChecked={schema.default === true} />;
      break;
    case "number":
    case "integer":
      control = (
        <input
          id={id}
          name={fieldName}
          type="number"
          step={kind === "integer" ? 1 : "any"}
          min={schema.minimum}
          max={schema.maximum}
          required={required}
          defaultValue={schema.default === undefined ? "" : String(schema.default)}
        />
      );
      break;
    case "enum":
      control = (
        <select id={id} name={fieldName} required={required} defaultValue={schema.default === undefined ? "" : String(schema.default)}>
          {!required ? <option value="">–</option> : null}
          {(schema.enum ?? []).map((v) => (
            <option key={String(v)} value={String(v)}>
              {String(v)}
            </option>
          ))}
        </select>
      );
      break;
    case "json":
      control = (
        <textarea
          id={id}
          name={fieldName}
          rows={3}
          required={required}
          placeholder="JSON"
          defaultValue={schema.default === undefined ? "" : JSON.stringify(schema.default)}
        />
      );
      break;
    default:
      control = (
        <input
          id={id}
          name={fieldName}
          type="text"
          required={required}
          defaultValue={schema.default === undefined ? "" : String(schema.default)}
        />
      );
  }
  return (
    <div class={`field field-${kind}`}>
      {label}
      {control}
    </div>
  );
}

/** A job form generated from the skill's input and parameter schemas; file inputs go up as one zip. */
export function SubmitJob({ skillId }: { skillId: string }) {
  const skill = useFetch<SkillDetail>(`/api/server/skills/${encodeURIComponent(skillId)}`);
  const engines = useFetch<{ engines: Array<{ name: string }> }>("/api/server/engines");
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  if (skill.error) return <main>{<ErrorBox error={skill.error} />}</main>;
  if (!skill.data) return <Loading what="the skill" />;
  const s = skill.data;
  const served = (engines.data?.engines ?? []).map((e) => e.name);
  // The server lists for each skill the engines it can run it with (every one of its engines for a skill that runs
  // on any; none when no plugin of the skill's engines is loaded): exactly those are offered.
  const usable = s.engines.filter((e) => served.length === 0 || served.includes(e));
  const plain = s.kind === "plain";
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const found: FieldProblem[] = [];
    const input = readFields("input", s.schemas.input, form, found);
    const parameter = readFields("parameter", s.schemas.parameter, form, found);
    const prompt = plain ? (form.elements.namedItem("prompt") as HTMLTextAreaElement).value : undefined;
    if (plain && (prompt ?? "").trim() === "")
      found.push({ pointer: "/prompt", message: "write the prompt: the task as the agent gets it" });
    setProblems(found);
    setFailure(undefined);
    if (found.length > 0) return;
    setBusy(true);
    try {
      const engine = (form.elements.namedItem("engine") as HTMLSelectElement).value;
      const body = plain ? { skill_id: s.id, engine, prompt } : { skill_id: s.id, engine, input, parameter };
      const job = await postJson<JobView & { needs_upload?: boolean }>("/api/server/jobs", body);
      if (job.status === "waiting_upload") {
        // Each file input goes into the zip under its field's name (the Input & File Protocol's strict key match).
        const entries: Record<string, Uint8Array> = {};
        for (const field of inputFieldsOf(s.schemas.input)) {
          if (field.source !== "file") continue;
          const file = (form.elements.namedItem(`input.${field.name}`) as HTMLInputElement).files?.[0];
          if (file) entries[field.name] = new Uint8Array(await file.arrayBuffer());
        }
        await postBytes(`/api/server/jobs/${encodeURIComponent(job.id)}/upload`, zipSync(entries), "application/zip");
      }
      location.hash = `#/server/job/${encodeURIComponent(job.id)}`;
    } catch (error) {
      const e = error as ApiError;
      setFailure(`${e.code ?? "error"}: ${e.message}`);
      setProblems((e.violations ?? []).map((v) => ({ pointer: v.pointer ?? "", message: v.message })));
    } finally {
      setBusy(false);
    }
  };
  const section = (group: Group, schema: JsonSchema | null) => {
    const props = Object.entries(schema?.properties ?? {});
    if (props.length === 0) return <p class="muted">no {group}s</p>;
    return props.map(([name, prop]) => (
      <Field key={name} group={group} name={name} schema={prop} required={(schema?.required ?? []).includes(name)} />
    ));
  };
  return (
    <main>
      <p>
        <a href="#/server">← jobs server</a>
      </p>
      <h1>New job: {s.name ?? s.id}</h1>
      {s.description ? <p>{s.description}</p> : null}
      <form class="job-form" onSubmit={submit}>
        <fieldset>
          <legend>engine</legend>
          <div class="field">
            <label for="f-engine">engine</label>
            <select id="f-engine" name="engine">
              {usable.map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </select>
            {usable.length === 0 ? (
              <p class="error" role="alert">
                no engine on this server can run this skill: none of the engines it names has a plugin here
              </p>
            ) : null}
          </div>
        </fieldset>
        {plain ? (
          <fieldset>
            <legend>prompt</legend>
            <div class="field">
              <label for="f-prompt">prompt (a plain Agent Skill: the task, as the agent gets it; the answer is its text)</label>
              <textarea id="f-prompt" name="prompt" rows={8} required />
            </div>
          </fieldset>
        ) : (
          <>
            <fieldset>
              <legend>inputs</legend>
              {section("input", s.schemas.input)}
            </fieldset>
            <fieldset>
              <legend>parameters</legend>
              {section("parameter", s.schemas.parameter)}
            </fieldset>
          </>
        )}
        {failure ? (
          <div class="error" role="alert">
            {failure}
          </div>
        ) : null}
        {problems.length > 0 ? (
          <ul class="error" role="alert">
            {problems.map((p) => (
              <li key={p.pointer + p.message}>
                {p.pointer || "(request)"}: {p.message}
              </li>
            ))}
          </ul>
        ) : null}
        <button type="submit" class="primary" disabled={busy || usable.length === 0}>
          {busy ? "submitting…" : "submit job"}
        </button>
      </form>
    </main>
  );
}
