/**
 * @skillrig/deliverable-function: the Task Oracle's `function` deliverable type. Default export: the plugin factory.
 */
import { DeliverableFunctionPlugin, type DeliverableFunctionOptions } from "./plugin.js";

export { DeliverableFunctionPlugin, PLUGIN_NAME } from "./plugin.js";
export type { DeliverableFunctionOptions, FunctionRunState } from "./plugin.js";
export { ARGS_LIST_MESSAGE, checkArgs, describeArity, positionalArity } from "./check-args.js";
export type { PositionalArity } from "./check-args.js";
export type { SampleSignature as FunctionSignature, SampleSignatureParameter as SignatureParameter } from "@skillrig/core";

/** Plugin factory: `deliverableFunction({ python: "python3" })`. */
export function deliverableFunction(options?: DeliverableFunctionOptions): DeliverableFunctionPlugin {
  return new DeliverableFunctionPlugin(options);
}

export default deliverableFunction;
