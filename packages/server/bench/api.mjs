#!/usr/bin/env node
/**
 * Jobs server benchmark: the real `skillrig serve` (built CLI) in a child process, with an engine that answers at
 * once (the test fixtures' echo engine), driven by 1, 10 and 100 concurrent clients. Each client loops: submit a
 * job (POST /v1/jobs), then follow its event stream until it has finished. Reported per level:
 *   - jobs/s: jobs submitted and finished per second;
 *   - submit p50/p95: latency of POST /v1/jobs (the API answering: schema checks, SQLite insert);
 *   - end-to-end p50/p95: from submit until the terminal status arrives over SSE (queue wait + runJob);
 *   - server RSS after the level, and its peak (VmHWM).
 * Clients use Node's fetch (undici) with keep-alive.
 *
 *   pnpm --filter @skillrig/server bench            (BENCH_SECONDS=5 per level, BENCH_CONCURRENCY=4 server slots)
 * Results also go to bench-results/server-api.json at the repository root.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const cli = join(repo, "packages", "cli", "dist", "bin.js");
const fixtures = resolve(here, "..", "test", "fixtures");
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const slots = Number(process.env.BENCH_CONCURRENCY ?? 4);
const levels = (process.env.BENCH_CLIENTS ?? "1,10,100").split(",").map(Number);

function startServer(dir) {
  const child = spawn(process.execPath, [cli, "serve", "--config", join(dir, "skillrig.config.json"), "--port", "0", "--json"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolvePromise, reject) => {
    let out = "";
    child.on("exit", (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout.on("data", (c) => {
      out += c;
      try {
        resolvePromise({ child, url: JSON.parse(out).url });
      } catch {
        // not the whole JSON yet
      }
    });
  });
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss_mb: +(kb("VmRSS") / 1024).toFixed(1), peak_rss_mb: +(kb("VmHWM") / 1024).toFixed(1) };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return +sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2);
}

/** Reads the job's SSE stream until the server ends it (after the terminal status). */
async function followToEnd(url, id) {
  const response = await fetch(`${url}/v1/jobs/${id}/events`);
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) text += decoder.decode(chunk, { stream: true });
  const last = [...text.matchAll(/"status":"(\w+)"/g)].at(-1)?.[1];
  return last;
}

async function client(url, deadline, stats) {
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const response = await fetch(`${url}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ skill_id: "quick-echo", engine: "echo", input: { message: "bench" } }),
    });
    const body = await response.json();
    const t1 = performance.now();
    if (response.status !== 201) {
      stats.errors.push(`${response.status} ${body.error?.code}`);
      continue;
    }
    stats.submit.push(t1 - t0);
    const status = await followToEnd(url, body.id);
    if (status === "succeeded") {
      stats.endToEnd.push(performance.now() - t0);
      stats.done += 1;
    } else stats.errors.push(`job ended ${status}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), "skillrig-bench-server-"));
writeFileSync(
  join(dir, "skillrig.config.json"),
  JSON.stringify({
    plugins: [join(fixtures, "echo-engine.mjs")],
    skills: { roots: [join(fixtures, "skills")] },
    server: { data_dir: "data", concurrency: slots, queue_limit: 100000 },
  }),
);
const { child, url } = await startServer(dir);
const results = [];
try {
  const idle = memory(child.pid);
  console.log(`skillrig serve at ${url}; ${slots} job slots; ${seconds} s per level; idle RSS ${idle.rss_mb} MB`);
  console.log("clients  jobs/s   submit p50/p95 ms   end-to-end p50/p95 ms   RSS MB (peak)   errors");
  for (const clients of levels) {
    const stats = { submit: [], endToEnd: [], done: 0, errors: [] };
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(Array.from({ length: clients }, () => client(url, deadline, stats)));
    const elapsed = (performance.now() - started) / 1000;
    stats.submit.sort((a, b) => a - b);
    stats.endToEnd.sort((a, b) => a - b);
    const row = {
      clients,
      jobs: stats.done,
      jobs_per_s: +(stats.done / elapsed).toFixed(1),
      submit_ms: { p50: percentile(stats.submit, 50), p95: percentile(stats.submit, 95) },
      end_to_end_ms: { p50: percentile(stats.endToEnd, 50), p95: percentile(stats.endToEnd, 95) },
      ...memory(child.pid),
      errors: stats.errors.length,
    };
    results.push(row);
    console.log(
      `${String(clients).padStart(7)}  ${String(row.jobs_per_s).padStart(6)}   ${`${row.submit_ms.p50} / ${row.submit_ms.p95}`.padEnd(18)}  ${`${row.end_to_end_ms.p50} / ${row.end_to_end_ms.p95}`.padEnd(22)}  ${`${row.rss_mb} (${row.peak_rss_mb})`.padEnd(14)}  ${row.errors}${stats.errors.length ? ` e.g. ${stats.errors[0]}` : ""}`,
    );
  }
  const out = join(repo, "bench-results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, "server-api.json"),
    `${JSON.stringify({ date: new Date().toISOString(), seconds, slots, idle, results }, null, 2)}\n`,
  );
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
