#!/usr/bin/env node
/**
 * Scale-out benchmark: jobs/s at 100 concurrent clients (BENCH_SCALE_CLIENTS) with an engine that answers at once
 * (the test fixtures' echo engine), for
 *   - sqlite: one `skillrig serve` (role all), the embedded default;
 *   - redis:  one `skillrig serve --role api` plus 1, 2 and 4 `skillrig serve --role worker` processes, around a
 *             real redis-server started here on a free loopback port (AOF on, appendfsync everysec: Redis's
 *             production setting).
 * Each client loops: POST /v1/jobs, then follow the job's SSE stream to its end. Every process is the built CLI
 * in its own child process; all traffic stays on loopback. Each configuration runs BENCH_SECONDS (5) after a 1 s
 * warm-up, in BENCH_ROUNDS (2) interleaved rounds (medians reported, the 1 -> 2 workers ratio taken within each
 * round), so the whole run takes about two minutes.
 *
 *   pnpm --filter @skillrig/server bench   (after api.mjs)   or   node bench/scale.mjs
 * Results: stdout (a Markdown table) and bench-results/server-scale.json at the repository root.
 *
 * Each row also says what one job cost in CPU, per process (user + system from /proc/<pid>/stat over the measured
 * window, divided by the jobs done): the server or API node, each worker, redis-server, and this benchmark's own
 * 100 clients. On a machine whose cores are all busy, that says what bounds jobs/s better than jobs/s itself.
 *
 * Two more redis rows (BENCH_CPU_ITERATIONS, default 500000, 0 to leave them out) measure worker scaling where the
 * workers are the bottleneck: each worker process has one job slot and the engine does a fixed amount of CPU work
 * per job (PBKDF2 rounds, about 100 ms), so one worker uses one core and a second can add the other.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..", "..");
const cli = join(repo, "packages", "cli", "dist", "bin.js");
const fixtures = resolve(here, "..", "test", "fixtures");
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const clients = Number(process.env.BENCH_SCALE_CLIENTS ?? 100);
const slots = Number(process.env.BENCH_CONCURRENCY ?? 4);
const workerCounts = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").map(Number);
const cpuIterations = Number(process.env.BENCH_CPU_ITERATIONS ?? 500_000);
const TICK_MS = 10; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

/** CPU time (user + system, ms) a process has used so far, or undefined where /proc is not there. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}
const redisBinary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((p) => existsSync(p));

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

function waitForOutput(child, test, what) {
  return new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`${what} did not start within 60 s: ${out}`)), 60_000);
    child.once("exit", (code) => rej(new Error(`${what} exited with ${code}: ${out}`)));
    child.stdout.on("data", (c) => {
      out += c;
      const value = test(out);
      if (value !== undefined) {
        clearTimeout(timer);
        res(value);
      }
    });
  });
}

async function startRedis(dir) {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes"];
  const child = spawn(redisBinary, [...args, "--appendfsync", "everysec"], { stdio: ["ignore", "pipe", "inherit"] });
  await waitForOutput(child, (out) => (out.includes("Ready to accept connections") ? true : undefined), "redis-server");
  return { child, url: `redis://127.0.0.1:${port}` };
}

async function serve(dir, args) {
  const child = spawn(process.execPath, [cli, "serve", "--config", join(dir, "skillrig.config.json"), "--port", "0", "--json", ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const info = await waitForOutput(
    child,
    (out) => {
      try {
        return JSON.parse(out);
      } catch {
        return undefined;
      }
    },
    "skillrig serve",
  );
  return { child, url: info.url, pid: info.pid };
}

function project(queue) {
  const dir = mkdtempSync(join(tmpdir(), "skillrig-bench-scale-"));
  writeFileSync(
    join(dir, "skillrig.config.json"),
    JSON.stringify({
      plugins: [join(fixtures, "echo-engine.mjs")],
      skills: { roots: [join(fixtures, "skills")] },
      server: { data_dir: "data", concurrency: slots, queue_limit: 100000, queue },
    }),
  );
  return dir;
}

async function followToEnd(url, id) {
  const response = await fetch(`${url}/v1/jobs/${id}/events`);
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) text += decoder.decode(chunk, { stream: true });
  return [...text.matchAll(/"status":"(\w+)"/g)].at(-1)?.[1];
}

async function drive(url, ms, parameter) {
  const stats = { done: 0, errors: [] };
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const response = await fetch(`${url}/v1/jobs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            skill_id: "quick-echo",
            engine: "echo",
            input: { message: "bench" },
            ...(parameter ? { parameter } : {}),
          }),
        });
        const body = await response.json();
        if (response.status !== 201) {
          stats.errors.push(`${response.status} ${body.error?.code}`);
          continue;
        }
        const status = await followToEnd(url, body.id);
        if (status === "succeeded") stats.done += 1;
        else stats.errors.push(`job ended ${status}`);
      }
    }),
  );
  return stats;
}

/** `processes`: { name: pid } of the processes whose CPU per job is reported (the benchmark's own is added). */
async function measure(config, url, processes) {
  await drive(url, 1000, config.parameter); // warm-up: worker threads started, skills loaded
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)]));
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const stats = await drive(url, seconds * 1000, config.parameter);
  const elapsed = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const cpu = {};
  if (stats.done > 0) {
    for (const [name, pid] of Object.entries(processes)) {
      const after = cpuMs(pid);
      if (after !== undefined && before[name] !== undefined) cpu[name] = +((after - before[name]) / stats.done).toFixed(2);
    }
    cpu["bench clients"] = +((own.user + own.system) / 1000 / stats.done).toFixed(2);
  }
  const row = {
    label: config.label,
    jobs: stats.done,
    jobs_per_s: +(stats.done / elapsed).toFixed(1),
    errors: stats.errors.length,
    error_kinds: [...new Set(stats.errors)].slice(0, 5),
    load: loadavg()[0],
    cpu_ms_per_job: cpu,
  };
  process.stderr.write(
    `bench scale: ${config.label}: ${row.jobs_per_s} jobs/s (${row.errors} errors${row.errors ? `: ${row.error_kinds.join("; ")}` : ""}); CPU ms/job ${JSON.stringify(cpu)}\n`,
  );
  return row;
}

async function stop(children) {
  await Promise.all(
    children.map(
      (c) =>
        new Promise((r) => {
          if (c.exitCode !== null || c.signalCode !== null) return r();
          c.once("exit", r);
          c.kill("SIGTERM");
        }),
    ),
  );
}

/** One measurement of one configuration: its processes started afresh, measured, stopped. */
async function runConfiguration(config, folders) {
  if (config.backend === "sqlite") {
    const dir = project({ backend: "sqlite" });
    folders.push(dir);
    const server = await serve(dir, []);
    try {
      return await measure(config, server.url, { server: server.pid });
    } finally {
      await stop([server.child]);
    }
  }
  const redisDir = mkdtempSync(join(tmpdir(), "skillrig-bench-redis-"));
  folders.push(redisDir);
  const redis = await startRedis(redisDir);
  const dir = project({ backend: "redis", url: redis.url });
  folders.push(dir);
  const children = [redis.child];
  try {
    const apiNode = await serve(dir, ["--role", "api"]);
    children.unshift(apiNode.child);
    const processes = { "API node": apiNode.pid, "redis-server": redis.child.pid };
    const workerArgs = ["--role", "worker", ...(config.slots ? ["--concurrency", String(config.slots)] : [])];
    for (let i = 0; i < config.workers; i++) {
      const worker = await serve(dir, workerArgs);
      children.unshift(worker.child);
      processes[`worker ${i + 1}`] = worker.pid;
    }
    return await measure(config, apiNode.url, processes);
  } finally {
    // Nodes first, Redis last, so no node logs a lost connection.
    await stop(children.slice(0, -1));
    await stop([redis.child]);
  }
}

const median = (values) => {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return +(sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2).toFixed(2);
};

// The machine is shared: configurations are measured in interleaved rounds (sqlite, redis 1, 2, 4 workers, then
// again), so a burst of someone else's load hits every configuration alike; ratios are taken within a round.
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const configs = [{ backend: "sqlite", label: "sqlite, one process (role all)" }];
if (redisBinary) {
  for (const n of workerCounts) configs.push({ backend: "redis", workers: n, label: `redis, 1 API node + ${n} worker${n > 1 ? "s" : ""}` });
  if (cpuIterations > 0)
    for (const n of [1, 2])
      configs.push({
        backend: "redis",
        workers: n,
        slots: 1,
        parameter: { cpu_iterations: cpuIterations },
        cpuBound: true,
        label: `redis, CPU-bound engine, 1 API node + ${n} worker${n > 1 ? "s" : ""} of 1 slot`,
      });
}
const measurements = [];
const folders = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const config of configs) measurements.push({ round, ...(await runConfiguration(config, folders)) });
  }
  const rows = configs.map((config) => {
    const mine = measurements.filter((m) => m.label === config.label);
    return {
      label: config.label,
      jobs_per_s: median(mine.map((m) => m.jobs_per_s)),
      rounds: mine.map((m) => m.jobs_per_s),
      errors: mine.reduce((sum, m) => sum + m.errors, 0),
      load: median(mine.map((m) => m.load)),
      cpu_ms_per_job: Object.fromEntries(
        Object.keys(mine[0]?.cpu_ms_per_job ?? {}).map((name) => [name, median(mine.map((m) => m.cpu_ms_per_job[name]))]),
      ),
    };
  });
  if (!redisBinary)
    rows.push({ label: "redis", jobs_per_s: null, rounds: [], errors: 0, note: "redis-server not installed (scripts/setup-system.sh)" });
  const inRound = (round, workers, prefix) =>
    measurements.find((m) => m.round === round && m.label.startsWith(`${prefix}1 API node + ${workers} worker`));
  const ratiosOf = (prefix) => {
    const out = [];
    for (let round = 1; round <= rounds; round++) {
      const one = inRound(round, 1, prefix)?.jobs_per_s;
      const two = inRound(round, 2, prefix)?.jobs_per_s;
      if (one && two) out.push(+(two / one).toFixed(2));
    }
    return out;
  };
  const ratios = ratiosOf("redis, ");
  const ratio = median(ratios);
  const cpuBoundRatios = ratiosOf("redis, CPU-bound engine, ");
  const cpuBoundRatio = median(cpuBoundRatios);
  console.log(
    `\n### Jobs server: jobs/s at ${clients} clients (instant engine, ${slots} job slots per process, ${seconds} s each, ${rounds} interleaved rounds, medians; ${cpus().length} cores)\n`,
  );
  console.log("| configuration | jobs/s (median) | each round | errors | load (1 min, median) | CPU ms per job (median) |");
  console.log("| --- | ---: | --- | ---: | ---: | --- |");
  const cpuText = (cpu) =>
    Object.entries(cpu ?? {})
      .map(([name, ms]) => `${name} ${ms}`)
      .join(", ");
  for (const r of rows)
    console.log(
      `| ${r.label} | ${r.jobs_per_s ?? r.note} | ${r.rounds.join(", ")} | ${r.errors} | ${r.load?.toFixed(1) ?? ""} | ${cpuText(r.cpu_ms_per_job)} |`,
    );
  const best = Math.max(...rows.filter((r) => !r.label.includes("CPU-bound")).map((r) => r.jobs_per_s ?? 0));
  console.log(
    `\n1 -> 2 workers: ${ratio ?? "n/a"}x (per round: ${ratios.join(", ") || "n/a"}; goal >= 1.6x). Best jobs/s: ${best}, ${(best / 35).toFixed(1)}x skillrig 0.1's ~35 at 100 clients (goal >= 200).`,
  );
  if (cpuBoundRatios.length > 0)
    console.log(
      `1 -> 2 workers with a CPU-bound engine (${cpuIterations} PBKDF2 rounds per job, 1 slot per worker): ${cpuBoundRatio}x (per round: ${cpuBoundRatios.join(", ")}).`,
    );
  const out = join(repo, "bench-results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, "server-scale.json"),
    `${JSON.stringify({ date: new Date().toISOString(), seconds, clients, slots, rounds, cores: cpus().length, rows, measurements, worker_ratio_1_to_2: ratio, worker_ratios_per_round: ratios, cpu_iterations: cpuIterations, cpu_bound_worker_ratio_1_to_2: cpuBoundRatio, cpu_bound_worker_ratios_per_round: cpuBoundRatios }, null, 2)}\n`,
  );
} finally {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
}
