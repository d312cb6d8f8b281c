/**
 * The one loader for TypeScript (and ESM) modules skillrig imports without a build step: `skillrig.config.ts` and a
 * plugin file named by path (`./plugins/my-engine.ts`). jiti transpiles on the fly, as vitest and nuxt load theirs.
 */
const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/;

/** Whether a path or file URL names a TypeScript module. */
export function isTypeScriptFile(pathOrUrl: string): boolean {
  return TYPESCRIPT.test(pathOrUrl);
}

/** The module's namespace (its `default` and named exports). */
export async function importTypeScript(file: string): Promise<Record<string, unknown>> {
  // Loaded here, not with core: a project with a JSON config and packaged plugins never needs it.
  const { createJiti } = await import("jiti");
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false });
  return (await jiti.import(file)) as Record<string, unknown>;
}
