/**
 * The engine option `mock_scenario`: the CLI talks to @skillrig/mock-model playing a scripted model instead of a
 * real one. The loopback model server is an optional peer of engine-kit: an engine plugin and its users install it
 * only if they play scenarios (tests, demos, offline runs), so it is imported when a run asks for one, and a run
 * that asks without it installed is told what to install.
 */
import { isAbsolute, resolve } from "node:path";
import { SkillrigError } from "@skillrig/core";
import type { MockDialect, MockModel, Scenario } from "@skillrig/mock-model";

export interface ScenarioModelRequest {
  /** The option's value: a scenario file (relative to the config's folder) or an inline scenario. */
  scenario: string | Scenario;
  configDir: string;
  dialects?: MockDialect[];
  /** A retried run's attempt: a scenario's `fail` turns answer their error in the first attempts only. */
  attempt: number;
  /** Who asks, for the error when the package is missing (the engine's display name). */
  engine: string;
}

type MockModelModule = typeof import("@skillrig/mock-model");

async function importMockModel(engine: string): Promise<MockModelModule> {
  try {
    return await import("@skillrig/mock-model");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new SkillrigError("usage", `${engine}: the engine option mock_scenario needs @skillrig/mock-model, which is not installed`, {
      field: "mock_scenario",
      hint: "install it beside the engine plugin (npm i -D @skillrig/mock-model), or remove mock_scenario to call the real model",
    });
  }
}

export async function startScenarioModel(request: ScenarioModelRequest): Promise<MockModel> {
  const mockModel = await importMockModel(request.engine);
  const { scenario, configDir } = request;
  const played =
    typeof scenario === "string"
      ? mockModel.loadScenario(isAbsolute(scenario) ? scenario : resolve(configDir, scenario))
      : mockModel.validateScenario(scenario);
  return mockModel.startMockModel({ scenario: played, dialects: request.dialects, attempt: request.attempt });
}
