import type { Runner, SkillrigPlugin } from "@skillrig/core";
import { toJsonReport } from "./json-report.js";
import { writeReportFile } from "./report-file.js";

export interface JsonReporterOptions {
  /** Write the report here (stdout for `--json`). */
  stream?: NodeJS.WritableStream;
  /** Or write `<dir>/<task_id>.json`. */
  dir?: string;
  /** Called with each file written. */
  onFile?: (file: string) => void;
}

/** Writes the JSON report (see json-report.ts) when a task run ends. */
export class JsonReporter implements SkillrigPlugin {
  readonly name = "@skillrig/oracle:json-reporter";
  readonly #options: JsonReporterOptions;

  constructor(options: JsonReporterOptions = {}) {
    if (!options.stream && !options.dir) throw new TypeError("JsonReporter needs a stream or a dir");
    this.#options = options;
  }

  apply(runner: Runner): void {
    runner.hooks.runEnd.tapPromise(this.name, async (info) => {
      if (info.kind !== "task" || !info.report) return;
      const text = `${JSON.stringify(toJsonReport(info.report), null, 2)}\n`;
      if (this.#options.stream) this.#options.stream.write(text);
      if (this.#options.dir) {
        // Written whether or not anyone listens: \`onFile?.(await write())\` would skip the write without a listener.
        const file = await writeReportFile(this.#options.dir, info.report.task_id, ".json", text);
        this.#options.onFile?.(file);
      }
    });
  }
}
