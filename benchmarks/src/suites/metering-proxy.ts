/**
 * 6. The metering proxy on a streamed answer (issue 40): a loopback model that streams an OpenAI Responses answer
 * as server-sent events, chunk by chunk with a short pause between chunks, read directly and through engine-kit's
 * metering proxy, rounds interleaved. Measured per chunk: the time from the model writing it to the client reading
 * it (one clock: the model, the proxy and the client are one process), and the time to the first chunk. The proxy
 * adds its forward hop and its side parsing; this says how much that is against the direct read of the same run.
 */
import { createServer, type Server } from "node:http";
import { performance } from "node:perf_hooks";
import { startMeteringProxy } from "@skillrig/engine-kit";
import { attempt, Footnotes } from "../attempt.js";
import { type Goal, type Section, type SuiteOutcome, formatMs } from "../report.js";
import type { BenchSettings } from "../settings.js";
import { median, percentile } from "../stats.js";

const CHUNKS = 40;
const PAUSE_MS = 2;
/** The added median chunk latency the goal allows (proxied minus direct, same run). */
const GOAL_ADDED_MS = 1;

interface StreamModel {
  url: string;
  /** When each chunk of the current answer was written, by sequence number. */
  written: number[];
  server: Server;
}

/** A model that streams CHUNKS Responses events (text deltas, then response.completed with usage) per request. */
async function streamingModel(): Promise<StreamModel> {
  const model: StreamModel = { url: "", written: [], server: createServer() };
  model.server.on("request", (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    model.written = [];
    let seq = 0;
    const next = () => {
      const last = seq === CHUNKS - 1;
      const event = last
        ? { type: "response.completed", seq, response: { model: "gpt-5", usage: { input_tokens: 1200, output_tokens: 300 } } }
        : { type: "response.output_text.delta", seq, delta: `token ${seq} ` };
      model.written[seq] = performance.now();
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      seq += 1;
      if (last) res.end();
      else setTimeout(next, PAUSE_MS);
    };
    next();
  });
  await new Promise<void>((r) => model.server.listen(0, "127.0.0.1", () => r()));
  model.url = `http://127.0.0.1:${(model.server.address() as { port: number }).port}`;
  return model;
}

/** One streamed answer read from `url`: each chunk's latency (read minus written) and the time to the first one. */
async function readStream(model: StreamModel, url: string): Promise<{ latencies: number[]; firstChunkMs: number }> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/responses`, { method: "POST", body: JSON.stringify({ stream: true }) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const latencies: number[] = [];
  let firstChunkMs = Number.NaN;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const now = performance.now();
    if (Number.isNaN(firstChunkMs)) firstChunkMs = now - started;
    text += decoder.decode(value, { stream: true });
    for (let cut = text.indexOf("\n\n"); cut !== -1; cut = text.indexOf("\n\n")) {
      const seq = /"seq":(\d+)/.exec(text.slice(0, cut))?.[1];
      if (seq !== undefined) latencies.push(now - model.written[Number(seq)]!);
      text = text.slice(cut + 2);
    }
  }
  if (latencies.length !== CHUNKS) throw new Error(`read ${latencies.length} of ${CHUNKS} chunks`);
  return { latencies, firstChunkMs };
}

export async function meteringProxyLatency(settings: BenchSettings): Promise<SuiteOutcome> {
  const notes = new Footnotes();
  const rounds = settings.quick ? 5 : 30;
  const measured = await attempt(async () => {
    const model = await streamingModel();
    const proxy = await startMeteringProxy({ upstream: model.url });
    try {
      const direct: number[] = [];
      const proxied: number[] = [];
      const directFirst: number[] = [];
      const proxiedFirst: number[] = [];
      settings.log(`metering proxy: ${rounds} rounds of a ${CHUNKS}-chunk streamed answer, direct and through the proxy`);
      for (let round = 0; round < rounds; round++) {
        // Interleaved, in alternating order, so a busy spell hits both sides.
        const order = round % 2 === 0 ? (["direct", "proxy"] as const) : (["proxy", "direct"] as const);
        for (const side of order) {
          const read = await readStream(model, side === "direct" ? model.url : proxy.origin);
          (side === "direct" ? direct : proxied).push(...read.latencies);
          (side === "direct" ? directFirst : proxiedFirst).push(read.firstChunkMs);
        }
      }
      if (proxy.totals.calls !== rounds) throw new Error(`the proxy metered ${proxy.totals.calls} of ${rounds} answers`);
      return {
        directP50: median(direct),
        proxiedP50: median(proxied),
        directP95: percentile(direct, 95),
        proxiedP95: percentile(proxied, 95),
        directFirst: median(directFirst),
        proxiedFirst: median(proxiedFirst),
        samples: { direct, proxied, directFirst, proxiedFirst },
      };
    } finally {
      await proxy.close();
      await new Promise((r) => model.server.close(r));
    }
  });
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "-");
  const section: Section = {
    title: "6. Metering proxy on a streamed answer",
    header: ["path", "chunk latency p50", "chunk latency p95", "time to first chunk p50", "p50 vs direct"],
    rows: [
      [
        "direct to the model",
        notes.cell(measured, (m) => formatMs(m.directP50)),
        notes.cell(measured, (m) => formatMs(m.directP95)),
        notes.cell(measured, (m) => formatMs(m.directFirst)),
        "1.00x",
      ],
      [
        "through the metering proxy",
        notes.cell(measured, (m) => formatMs(m.proxiedP50)),
        notes.cell(measured, (m) => formatMs(m.proxiedP95)),
        notes.cell(measured, (m) => formatMs(m.proxiedFirst)),
        notes.cell(measured, (m) => ratio(m.proxiedP50, m.directP50)),
      ],
    ],
    notes: [
      `${rounds} streamed answers each way, rounds interleaved; each answer is ${CHUNKS} Responses events written ${PAUSE_MS} ms apart (the last one response.completed with usage, which the proxy reads). Chunk latency: the model's write to the client's read, on one clock (model, proxy and client share this process, so the proxy's parsing competes with both).`,
      ...notes.lines,
    ],
    figures: { measured },
  };
  const goal: Goal = {
    id: "metering-proxy-chunk-latency",
    description: "latency the metering proxy adds to a streamed chunk (p50, proxied minus direct)",
    target: `< ${GOAL_ADDED_MS} ms`,
    measured: measured.ok
      ? `${formatMs(measured.value.proxiedP50 - measured.value.directP50)} (${ratio(measured.value.proxiedP50, measured.value.directP50)})`
      : "-",
    met: measured.ok ? measured.value.proxiedP50 - measured.value.directP50 < GOAL_ADDED_MS : null,
  };
  return { sections: [section], goals: [goal] };
}
