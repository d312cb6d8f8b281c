/** The machine a run was measured on, recorded with the figures (they mean nothing without it). */
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { availableLevels } from "@skillrig/sandbox";
import type { PythonInfo } from "./python.js";

export interface MachineDescription {
  summary: string;
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  python: PythonInfo;
  sandboxLevels: ReturnType<typeof availableLevels>;
  /** 1-minute load average when the run started: other work on the machine skews every figure. */
  loadAverageAtStart: number;
}

export function describeMachine(python: PythonInfo): MachineDescription {
  const cpuList = cpus();
  const cpuModel = cpuList[0]?.model.trim() ?? "unknown CPU";
  const memoryGiB = Math.round((totalmem() / 2 ** 30) * 10) / 10;
  const os = `${type()} ${release()}`;
  const sandboxLevels = availableLevels();
  const load = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  const levels = sandboxLevels
    .filter((l) => l.available)
    .map((l) => l.level)
    .join(", ");
  return {
    summary: `${cpuList.length} x ${cpuModel}, ${memoryGiB} GiB, ${os}, Node ${process.version}, Python ${python.version}, sandbox levels available: ${levels}; load average ${load} at start`,
    cpuModel,
    cores: cpuList.length,
    memoryGiB,
    os,
    node: process.version,
    python,
    sandboxLevels,
    loadAverageAtStart: load,
  };
}
