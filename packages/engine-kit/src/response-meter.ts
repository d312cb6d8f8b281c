/**
 * Reads the usage of one model response as its bytes pass through, without holding the answer back: server-sent
 * events are split into events and each `data:` read as JSON; a JSON body is kept (up to a bound) and read at its
 * end. Bounded: an SSE line longer than `maxLineBytes` or a JSON body larger than `maxJsonBytes` is passed through
 * unread, and the response is marked `unread` (its usage unknown), never guessed.
 */
import { StringDecoder } from "node:string_decoder";
import { readUsage, type UsageReading } from "./usage-readers.js";

export interface ResponseMeterBounds {
  /** Largest JSON (non-streamed) body whose usage is read. */
  maxJsonBytes: number;
  /** Longest SSE line read. */
  maxLineBytes: number;
}

export interface ResponseMeter {
  feed(chunk: Buffer): void;
  /** The response's usage (undefined when it said none), and whether a bound kept part of it from being read. */
  end(): { reading?: UsageReading; unread: boolean };
}

function merge(into: UsageReading | undefined, reading: UsageReading | undefined): UsageReading | undefined {
  if (!reading) return into;
  return { ...(into ?? {}), ...reading };
}

function sseMeter(bounds: ResponseMeterBounds): ResponseMeter {
  const decoder = new StringDecoder("utf8");
  let partial = "";
  let skipping = false;
  let unread = false;
  let data: string[] = [];
  let reading: UsageReading | undefined;
  const dispatch = () => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    if (text === "[DONE]") return;
    try {
      reading = merge(reading, readUsage(JSON.parse(text)));
    } catch {
      // Not JSON (a comment or keep-alive the API sends): no usage in it.
    }
  };
  const line = (text: string) => {
    const l = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (l === "") return dispatch();
    if (l.startsWith("data:")) data.push(l.slice(l.startsWith("data: ") ? 6 : 5));
  };
  return {
    feed(chunk) {
      const text = decoder.write(chunk);
      let start = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
        const whole = partial.length + (nl - start);
        if (skipping) skipping = false;
        else if (whole > bounds.maxLineBytes) {
          data = [];
          unread = true;
        } else line(partial + text.slice(start, nl));
        partial = "";
        start = nl + 1;
      }
      if (skipping) return;
      partial += text.slice(start);
      if (partial.length > bounds.maxLineBytes) {
        partial = "";
        data = [];
        skipping = true;
        unread = true;
      }
    },
    end() {
      if (!skipping && partial) line(partial);
      dispatch();
      return { reading, unread };
    },
  };
}

function jsonMeter(bounds: ResponseMeterBounds): ResponseMeter {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let unread = false;
  return {
    feed(chunk) {
      if (unread) return;
      bytes += chunk.length;
      if (bytes > bounds.maxJsonBytes) {
        unread = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    },
    end() {
      if (unread || bytes === 0) return { unread };
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return { unread: false };
      }
      // Gemini's streamGenerateContent without alt=sse answers a JSON array of chunks.
      const values = Array.isArray(body) ? body : [body];
      let reading: UsageReading | undefined;
      for (const value of values) reading = merge(reading, readUsage(value));
      return { reading, unread: false };
    },
  };
}

const NOTHING: ResponseMeter = { feed() {}, end: () => ({ unread: false }) };

/** A meter for a response of this content type: SSE, JSON, or nothing to read (any other type). */
export function responseMeter(contentType: string | undefined, bounds: ResponseMeterBounds): ResponseMeter {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/event-stream") return sseMeter(bounds);
  if (type === "application/json" || type.endsWith("+json")) return jsonMeter(bounds);
  return NOTHING;
}
