import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Writes a report file named after the task (made safe for any filesystem) into `dir`; returns its path. */
export async function writeReportFile(dir: string, taskId: string, suffix: string, content: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${taskId.replace(/[^A-Za-z0-9._-]+/g, "_")}${suffix}`);
  await writeFile(file, content);
  return file;
}
