/**
 * GET /v1/jobs/{id}/events: Server-Sent Events of one job, from the store. Every event carries its store sequence
 * number as the SSE `id`, so a client that reconnects with `Last-Event-ID` (browsers' EventSource do this on
 * their own) gets exactly what it missed, then the live ones. The stream ends after the job's terminal status.
 *
 * The SSE framing is written by hand: it is three lines per event, and the part that needs care, replaying
 * from the store without losing or repeating the events that arrive meanwhile, is ours either way.
 */
import type { FastifyInstance } from "fastify";
import { jobIdParams, responses } from "../api-schemas.js";
import { isTerminal, type StoredEvent } from "../job-store.js";
import { clientCleaner, requireJob } from "../job-view.js";
import type { ServerContext } from "../server-context.js";

const HEARTBEAT_MS = 15_000;

/** One SSE frame; `clean` takes the server's folders out of the event's data. */
function frame(event: StoredEvent, clean: <T>(value: T) => T): string {
  const data = JSON.stringify({ seq: event.seq, job_id: event.job_id, at: event.at, type: event.type, data: clean(event.data) });
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

function endsStream(event: StoredEvent): boolean {
  return event.type === "status" && isTerminal((event.data as { status: Parameters<typeof isTerminal>[0] }).status);
}

export function eventRoutes(app: FastifyInstance, context: ServerContext): void {
  // Open streams never end on their own while a job waits; closing the server ends them so it can stop.
  const open = new Set<() => void>();
  app.addHook("preClose", async () => {
    for (const end of [...open]) end();
  });

  app.get<{ Params: { id: string }; Querystring: { last_event_id?: string } }>(
    "/v1/jobs/:id/events",
    {
      schema: {
        operationId: "streamJobEvents",
        summary: "Live events of a job (Server-Sent Events)",
        description:
          "Events `status` (status changes), `engine` (engine events: messages, tool calls, file changes, usage), `log` (log lines) and, for oracle runs, `case` (each case's verdict). Each `id` is a sequence number; reconnect with the `Last-Event-ID` header (or `?last_event_id=`) to resume. The stream ends after the terminal status.",
        tags: ["jobs"],
        params: jobIdParams,
        querystring: { type: "object", properties: { last_event_id: { type: "string", pattern: "^[0-9]{1,15}$" } } },
        headers: { type: "object", properties: { "last-event-id": { type: "string", pattern: "^[0-9]{0,15}$" } } },
        response: {
          200: {
            description: "text/event-stream: `id: <seq>`, `event: <type>`, `data: {seq, job_id, at, type, data}`",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...responses.errorResponses(401, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const job = await requireJob(context, request.params.id, request.caller);
      const clean = clientCleaner(job);
      const header = request.headers["last-event-id"];
      let sent = Number((typeof header === "string" && header !== "" ? header : undefined) ?? request.query.last_event_id ?? 0);

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      raw.write("retry: 1000\n\n");

      let ended = false;
      let replaying = true;
      const backlog: StoredEvent[] = [];
      const finish = () => {
        if (ended) return;
        ended = true;
        open.delete(finish);
        unsubscribe();
        clearInterval(heartbeat);
        raw.end();
      };
      const write = (event: StoredEvent) => {
        if (ended || event.seq <= sent) return;
        sent = event.seq;
        raw.write(frame(event, clean));
        if (endsStream(event)) finish();
      };
      // Subscribe before replaying so nothing that happens during the replay is missed; duplicates are dropped by seq.
      let unsubscribe = () => {};
      const heartbeat = setInterval(() => raw.write(": keep-alive\n\n"), HEARTBEAT_MS);
      raw.on("close", finish);
      open.add(finish);
      const listening = await context.queue.subscribe(job.id, (event) => (replaying ? backlog.push(event) : write(event)));
      if (ended) listening();
      else unsubscribe = listening;

      const replay = async () => {
        for (;;) {
          if (ended) break;
          const page = await context.queue.store.eventsAfter(job.id, sent, 500);
          for (const event of page) write(event);
          if (page.length < 500 || ended) break;
        }
      };
      await replay();
      replaying = false;
      for (const event of backlog.splice(0)) write(event);
      // A finished job: its terminal status is in the log (the store writes both together), but it may have been
      // written after the replay above and its live message may not have arrived yet (Redis pub/sub), so the log
      // is read once more before the stream ends; nothing more will come after it.
      if (!ended && isTerminal((await context.queue.store.get(job.id))!.status)) {
        await replay();
        finish();
      }
    },
  );
}
