/**
 * The corpus on disk: every `fixtures/<class>/<name>/fixture.json`, checked against `fixture.schema.json` (ajv)
 * and against the folder it sits in. A malformed fixture is an error naming its file and what is wrong, so the
 * corpus fails loudly instead of silently running fewer attacks.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { Ajv, type ErrorObject } from "ajv";

export const PACKAGE_DIR = resolve(import.meta.dirname, "..", "..");
export const FIXTURES_DIR = join(PACKAGE_DIR, "fixtures");
export const REPO = resolve(PACKAGE_DIR, "..", "..");

export type Level = "namespaces" | "rlimits" | "none";
export type User = "root" | "nonroot";
export type EntryPoint =
  | "local"
  | "server-sqlite"
  | "server-redis"
  | "solve"
  | "solve-server-sqlite"
  | "skill-job"
  | "http-sqlite"
  | "http-redis"
  | "eval";
export type Status =
  | "passed"
  | "failed"
  | "error"
  | "timeout"
  | "memory_limit"
  | "output_limit"
  | "invalid"
  | "invalid_test_format"
  | "engine_failed"
  | "artifact_missing";

export interface Verdict {
  exit?: number;
  cases?: Record<string, Status | Status[]>;
  hidden_tests_reachable?: boolean;
  refused?: { code: string; message_matches?: string };
  attempts?: Status | Status[];
  job?: { status: "succeeded" | "failed"; code?: string };
  agent_not_root?: boolean;
  probe_excludes?: string[];
  any_of?: Verdict[];
  eval?: EvalVerdict;
}

/** What an `eval` row's iteration files must say (fixture.schema.json's verdict.eval). */
export interface EvalVerdict {
  configurations: Array<"with_skill" | "without_skill" | "old_skill">;
  assertions_failed?: string[];
  planted?: string[];
  forged_mark?: string;
  evidence_includes?: string[];
  evidence_excludes?: string[];
  trigger_rates?: Record<string, number>;
}

export interface HttpRequestSpec {
  method: "GET" | "POST" | "DELETE";
  path: string;
  headers?: Record<string, string>;
  body_file?: string;
  upload?: string;
  upload_file?: string;
  upload_expect?: number[];
  data_unchanged?: boolean;
  as?: string;
  wait_for?: string[];
  expect: { status: number[]; body_matches?: string };
}

export interface HttpSpec {
  requests: HttpRequestSpec[];
  after: HttpRequestSpec;
  restart_with_requeue?: boolean;
  server?: Record<string, unknown>;
  starts_before?: Array<{ first: string; then: string[] }>;
}

export interface Fixture {
  class: string;
  attacks: string;
  entry_points: EntryPoint[];
  levels?: Level[];
  users?: User[];
  attack_marker?: string;
  grade?: {
    task: string;
    deliverable?: string;
    samples?: string;
    jobs?: number;
    before?: Array<{ task?: string; deliverable: string; level: Level; why: string; home_untouched?: boolean | User[]; verdict?: Verdict }>;
  };
  http?: HttpSpec;
  agent?: {
    scenario: string;
    task?: string;
    skill?: string;
    reads_back: { id?: string; status?: string; probe?: string };
    /** engine-output: a hostile ACP agent script that is the engine (test/support/engine-output-rows.ts), and its arguments. */
    acp_agent?: string;
    acp_args?: string[];
  };
  verdict?: Verdict;
  overrides?: Array<{ entry_point?: string; level?: Level; user?: User; why: string; verdict: Verdict }>;
}

export interface LoadedFixture {
  /** `<class>/<name>`, how tests and reports name it. */
  id: string;
  dir: string;
  file: string;
  spec: Fixture;
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile<Fixture>(JSON.parse(readFileSync(join(PACKAGE_DIR, "fixture.schema.json"), "utf8")));

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || "/"} ${e.message}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as unknown[]).join(", ")})` : ""}`,
    )
    .join("; ");
}

/** Reads and checks one fixture folder; throws an Error naming the file and every problem found. */
export function loadFixture(dir: string, root = FIXTURES_DIR): LoadedFixture {
  const file = join(dir, "fixture.json");
  const where = relative(REPO, file);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${where}: not readable JSON: ${(error as Error).message}`);
  }
  if (!validate(data)) throw new Error(`${where}: does not match fixture.schema.json: ${describeErrors(validate.errors)}`);
  const spec = data;
  const problems: string[] = [];
  const id = relative(root, dir);
  const [folderClass] = id.split("/");
  if (folderClass !== spec.class) problems.push(`/class is "${spec.class}" but the fixture sits in fixtures/${folderClass}/`);
  const mustExist = (pointer: string, path: string | undefined) => {
    if (path !== undefined && !existsSync(join(dir, path))) problems.push(`${pointer}: "${path}" does not exist in ${relative(REPO, dir)}`);
  };
  mustExist("/grade/task", spec.grade?.task);
  mustExist("/grade/deliverable", spec.grade?.deliverable);
  mustExist("/grade/samples", spec.grade?.samples);
  spec.grade?.before?.forEach((b, i) => {
    mustExist(`/grade/before/${i}/deliverable`, b.deliverable);
    mustExist(`/grade/before/${i}/task`, b.task);
  });
  spec.http?.requests.forEach((r, i) => {
    mustExist(`/http/requests/${i}/body_file`, r.body_file);
    mustExist(`/http/requests/${i}/upload`, r.upload);
    mustExist(`/http/requests/${i}/upload_file`, r.upload_file);
  });
  mustExist("/agent/scenario", spec.agent?.scenario);
  mustExist("/agent/task", spec.agent?.task);
  mustExist("/agent/skill", spec.agent?.skill);
  mustExist("/agent/acp_agent", spec.agent?.acp_agent);
  if ((spec.entry_points.includes("solve") || spec.entry_points.includes("solve-server-sqlite")) && !spec.agent?.task)
    problems.push("/agent/task: a solve fixture names the task its agent solves");
  if (spec.entry_points.includes("skill-job") && !spec.agent?.skill) problems.push("/agent/skill: a skill-job fixture names its skill");
  if (spec.entry_points.includes("eval") && !spec.agent?.skill)
    problems.push("/agent/skill: an eval fixture names the skill whose evals run");
  if (problems.length > 0) throw new Error(`${where}: ${problems.join("; ")}`);
  return { id, dir, file, spec };
}

/** Every fixture of the corpus, sorted by id. Throws on the first malformed one (naming its file). */
export function loadCorpus(root = FIXTURES_DIR): LoadedFixture[] {
  const found: LoadedFixture[] = [];
  for (const cls of readdirSync(root).sort()) {
    const classDir = join(root, cls);
    if (!statSync(classDir).isDirectory()) continue;
    for (const name of readdirSync(classDir).sort()) {
      const dir = join(classDir, name);
      if (statSync(dir).isDirectory()) found.push(loadFixture(dir, root));
    }
  }
  return found;
}

/** The verdict a fixture must get on one row of the matrix (the first matching override, else its verdict). */
export function verdictFor(fixture: Fixture, row: { entry_point: EntryPoint; level?: Level; user: User }): Verdict {
  const match = fixture.overrides?.find(
    (o) =>
      (o.entry_point === undefined || o.entry_point === row.entry_point) &&
      (o.level === undefined || o.level === row.level) &&
      (o.user === undefined || o.user === row.user),
  );
  return match?.verdict ?? fixture.verdict ?? {};
}
