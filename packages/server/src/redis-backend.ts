/**
 * Opens the redis backend: one command connection (checked at once, so a wrong URL is a clear start-up error
 * rather than a hang), the store on it, and the BullMQ queue. Closing ends all of it.
 */
import { SkillrigError } from "@skillrig/core";
import { Redis } from "ioredis";
import type { JobExecution } from "./job-execution.js";
import { RedisJobQueue } from "./redis-job-queue.js";
import { RedisJobStore } from "./redis-job-store.js";
import type { QueueSettings } from "./server-config.js";

const CONNECT_TIMEOUT_MS = 10_000;

export interface RedisBackendRole {
  api: boolean;
  worker: boolean;
  execution: JobExecution;
  runsDir: string;
  concurrency: number;
  onRestart: "fail" | "requeue";
  uploadWaitMs: number;
  runningLimits: Record<string, number>;
  maxRunningMs?: number;
  reservedSlots?: number;
}

export async function openRedisBackend(
  settings: Extract<QueueSettings, { backend: "redis" }>,
  role: RedisBackendRole,
): Promise<{ queue: RedisJobQueue; close(): Promise<void> }> {
  // maxRetriesPerRequest null: while Redis restarts, commands wait for the reconnect instead of failing (BullMQ needs it too).
  const connection = new Redis(settings.url, { maxRetriesPerRequest: null, lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS });
  let lastError: Error | undefined;
  connection.on("error", (error: Error) => {
    lastError = error;
  });
  try {
    await connection.connect();
    await connection.ping();
  } catch (error) {
    connection.disconnect();
    throw new SkillrigError(
      "invalid_config",
      `cannot reach Redis at ${redactUrl(settings.url)}: ${(lastError ?? (error as Error)).message}`,
      {
        field: "server.queue.url",
        hint: "start redis-server there, or fix server.queue.url (redis://host:port)",
      },
    );
  }
  const store = new RedisJobStore(connection, settings.url, settings.prefix);
  await store.migrate();
  const queue = new RedisJobQueue({
    store,
    connection,
    ...role,
    lockMs: settings.lockMs,
    stalledCheckMs: settings.stalledCheckMs,
    rateLimit: settings.rateLimit,
  });
  return {
    queue,
    async close() {
      await store.close();
      connection.disconnect();
    },
  };
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, "//$1:***@");
}
