/**
 * Raw HTTP to a server (node:http, which, unlike fetch, sends the Host header it is given: a rebound name's page
 * sends its own), for the fixtures that attack the server itself.
 */
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { HttpRequestSpec, LoadedFixture } from "./fixtures.js";

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

/** Sends one request of a fixture (`{job}` in its path replaced); returns what differs from what it must get. */
export async function sendSpec(
  base: string,
  fixture: LoadedFixture,
  spec: HttpRequestSpec,
  job: string,
): Promise<{ problems: string[]; observed: string }> {
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
  if (!spec.expect.status.includes(answer.status))
    problems.push(`${spec.method} ${path} answered ${answer.status}, must be ${spec.expect.status.join(" or ")}`);
  if (spec.expect.body_matches && !new RegExp(spec.expect.body_matches, "i").test(answer.body)) {
    problems.push(`${spec.method} ${path}: the answer does not match /${spec.expect.body_matches}/i: ${answer.body.slice(0, 300)}`);
  }
  return { problems, observed };
}
