/** What every route module gets: the settings, the runner, the queue (and its store), and how work is run. */
import type { Runner } from "@skillrig/core";
import type { JobExecution } from "./job-execution.js";
import type { JobQueue } from "./job-queue.js";
import type { ServerSettings } from "./server-config.js";

export interface ServerContext {
  settings: ServerSettings;
  runner: Runner;
  execution: JobExecution;
  queue: JobQueue;
  /** `<dataDir>/runs`: each job's run folder, its upload unzipped into it. */
  runsDir: string;
}
