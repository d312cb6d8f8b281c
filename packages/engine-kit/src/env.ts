/**
 * The environment an engine CLI runs with. Nothing is inherited wholesale: a user's shell holds keys and
 * settings for other tools (and other engines) that must not reach a job. Only what a CLI needs to work
 * on this machine passes through; the engine adds its own variables on top.
 */
const PASS_THROUGH = [
  "PATH",
  "LANG",
  "LANGUAGE",
  "TZ",
  "SYSTEMROOT",
  "COMSPEC",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
];

export interface EngineEnvInput {
  home: string;
  tmpdir: string;
  /** From the job's runtime (`job.prepareRuntime`: a skill's Python environment on PATH). */
  jobEnv?: Record<string, string>;
  /** From the plugin options (`env`). */
  optionEnv?: Record<string, string>;
  /** The engine's own variables (API key, base URL, trust flags). */
  engineEnv?: Record<string, string>;
  source?: NodeJS.ProcessEnv;
}

export function engineEnv(input: EngineEnvInput): Record<string, string> {
  const source = input.source ?? process.env;
  const env: Record<string, string> = {};
  for (const key of Object.keys(source)) {
    if (PASS_THROUGH.includes(key) || key.startsWith("LC_")) env[key] = source[key]!;
  }
  Object.assign(env, {
    HOME: input.home,
    USERPROFILE: input.home,
    TMPDIR: input.tmpdir,
    TMP: input.tmpdir,
    TEMP: input.tmpdir,
    // Plain output: no colour codes in the streams we parse.
    NO_COLOR: "1",
    TERM: "dumb",
  });
  Object.assign(env, input.jobEnv ?? {}, input.optionEnv ?? {}, input.engineEnv ?? {});
  return env;
}
