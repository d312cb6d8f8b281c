/**
 * Raw HTTP to a server (node:http, which, unlike fetch, sends the Host header it is given: a rebound name's page
 * sends its own), for the fixtures that attack the server itself.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { request } from "node:http";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { HttpRequestSpec, HttpSpec, LoadedFixture } from "./fixtures.js";

export interface HttpAnswer {
  status: number;
  body: string;
}

export function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpAnswer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        // An event stream that was (wrongly) opened: its first bytes are enough to tell, then it is closed.
        res.on("data", (chunk: string) => {
          text += chunk;
          if (res.headers["content-type"]?.startsWith("text/event-stream")) req.destroy();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("close", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Every file under the server's data folder but its SQLite store, with a digest of its content. */
function dataFiles(dataDir: string | undefined): Record<string, string> {
  if (!dataDir || !existsSync(dataDir)) return {};
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !entry.name.startsWith("skillrig-server.sqlite"))
      out[path.slice(dataDir.length)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** Where a fixture's requests go: the server's data folder (for data_unchanged), the jobs named so far. */
export interface SendContext {
  dataDir?: string;
  named?: Map<string, { id: string; headers: Record<string, string> }>;
}

/** Sends one request of a fixture (`{job}` in its path replaced); returns what differs from what it must get. */
export async function sendSpec(
  base: string,
  fixture: LoadedFixture,
  spec: HttpRequestSpec,
  job: string,
  context: SendContext = {},
): Promise<{ problems: string[]; observed: string; created?: string }> {
  const before = spec.data_unchanged ? dataFiles(context.dataDir) : undefined;
  const result = await sendOne(base, fixture, spec, job);
  if (before) {
    const after = dataFiles(context.dataDir);
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k]);
    if (changed.length > 0) result.problems.push(`the data folder changed: ${changed.slice(0, 5).join(", ")}`);
  }
  if (spec.as && result.created) context.named?.set(spec.as, { id: result.created, headers: spec.headers ?? {} });
  return result;
}

async function sendOne(
  base: string,
  fixture: LoadedFixture,
  spec: HttpRequestSpec,
  job: string,
): Promise<{ problems: string[]; observed: string; created?: string }> {
  const body = spec.body_file === undefined ? undefined : readFileSync(join(fixture.dir, spec.body_file), "utf8");
  const path = spec.path.replace("{job}", job);
  let answer: HttpAnswer;
  try {
    answer = await send(base, spec.method, path, spec.headers, body);
  } catch (error) {
    return { problems: [`${spec.method} ${path}: ${(error as Error).message}`], observed: `no answer: ${(error as Error).message}` };
  }
  const observed = `${spec.method} ${path}${spec.headers ? ` ${JSON.stringify(spec.headers)}` : ""} -> ${answer.status} ${answer.body.slice(0, 200)}`;
  const problems: string[] = [];
  if ((spec.upload || spec.upload_file) && answer.status === 201)
    problems.push(...(await uploadAndWait(base, fixture, spec, JSON.parse(answer.body).id as string)));
  if (!spec.expect.status.includes(answer.status))
    problems.push(`${spec.method} ${path} answered ${answer.status}, must be ${spec.expect.status.join(" or ")}`);
  if (spec.expect.body_matches && !new RegExp(spec.expect.body_matches, "i").test(answer.body)) {
    problems.push(`${spec.method} ${path}: the answer does not match /${spec.expect.body_matches}/i: ${answer.body.slice(0, 300)}`);
  }
  const created = answer.status === 201 ? (JSON.parse(answer.body) as { id?: string }).id : undefined;
  return { problems, observed, created };
}

const FINAL = ["succeeded", "failed", "canceled"];

/** A folder as a zip (Python's zipfile: the interpreter the corpus needs anyway). */
function zipOf(dir: string): Buffer {
  const made = spawnSync(
    "python3",
    [
      "-c",
      "import io,os,sys,zipfile\nb=io.BytesIO()\nwith zipfile.ZipFile(b,'w') as z:\n  for n in sorted(os.listdir(sys.argv[1])): z.write(os.path.join(sys.argv[1],n),n)\nsys.stdout.buffer.write(b.getvalue())",
      dir,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  if (made.status !== 0) throw new Error(`zipping ${dir} failed: ${made.stderr}`);
  return made.stdout;
}

/** Uploads the fixture's folder to the job the request created, then waits for a final status (the server must live). */
async function uploadAndWait(base: string, fixture: LoadedFixture, spec: HttpRequestSpec, job: string): Promise<string[]> {
  const zip = spec.upload_file ? readFileSync(join(fixture.dir, spec.upload_file)) : zipOf(join(fixture.dir, spec.upload!));
  const problems: string[] = [];
  let uploaded: HttpAnswer;
  try {
    uploaded = await sendBytes(base, `/v1/jobs/${job}/upload`, zip, spec.headers);
  } catch (error) {
    return [`uploading to job ${job}: ${(error as Error).message}`];
  }
  if (spec.upload_expect && !spec.upload_expect.includes(uploaded.status)) {
    problems.push(
      `the upload to job ${job} answered ${uploaded.status}, must be ${spec.upload_expect.join(" or ")}: ${uploaded.body.slice(0, 300)}`,
    );
  }
  if (uploaded.status !== 202) return problems;
  return [...problems, ...(await waitForFinal(base, job, "after the upload", spec.headers, spec.wait_for))];
}

/**
 * Waits until the job has a final status; what went wrong otherwise (the server stopped answering, or the job did
 * not end within a generous 120 s that a loaded machine cannot miss).
 */
export async function waitForFinal(
  base: string,
  job: string,
  when: string,
  headers: Record<string, string> = {},
  statuses: string[] = FINAL,
): Promise<string[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    let status: string | undefined;
    try {
      const got = await send(base, "GET", `/v1/jobs/${job}`, headers);
      status = (JSON.parse(got.body) as { status?: string }).status;
    } catch (error) {
      return [`${when} the server stopped answering: ${(error as Error).message}`];
    }
    if (status && statuses.includes(status)) return [];
    if (Date.now() > deadline) return [`${when}: job ${job} did not reach ${statuses.join("/")} within 120 s (status ${status})`];
    await new Promise((r) => setTimeout(r, 200));
  }
}

function sendBytes(base: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      { method: "POST", headers: { ...headers, "content-type": "application/zip", "content-length": String(body.length) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`POST ${path}: no answer within 60 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** The status of a named job, read with its own request's headers. */
async function statusOf(base: string, job: { id: string; headers: Record<string, string> }): Promise<string | undefined> {
  const got = await send(base, "GET", `/v1/jobs/${job.id}`, job.headers);
  return (JSON.parse(got.body) as { status?: string }).status;
}

/**
 * http.starts_before: each `first` job must end succeeded while every `then` job is still queued (it started after,
 * if at all: the order of events, read from the store, not from a clock). Then every named job is canceled.
 */
export async function checkStartOrder(base: string, http: HttpSpec, named: SendContext["named"] & object): Promise<string[]> {
  const problems: string[] = [];
  for (const rule of http.starts_before ?? []) {
    const first = named.get(rule.first);
    if (!first) {
      problems.push(`starts_before: no job named "${rule.first}" was created`);
      continue;
    }
    problems.push(...(await waitForFinal(base, first.id, `starts_before: "${rule.first}"`, first.headers)));
    const ended = await statusOf(base, first);
    if (ended !== "succeeded") problems.push(`starts_before: "${rule.first}" ended ${ended}, must be succeeded`);
    for (const name of rule.then) {
      const other = named.get(name);
      const status = other ? await statusOf(base, other) : "never created";
      if (status !== "queued") problems.push(`starts_before: "${name}" is ${status} once "${rule.first}" ended; it must still be queued`);
    }
  }
  for (const job of named.values()) await send(base, "POST", `/v1/jobs/${job.id}/cancel`, job.headers).catch(() => undefined);
  return problems;
}
