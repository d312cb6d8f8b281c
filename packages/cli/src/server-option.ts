/**
 * What `--server URL` needs at command registration (help text), apart from the client itself: remote-run.ts loads
 * @skillrig/server (and fastify with it), so commands import it only when --server is given.
 */
export const SERVER_TOKEN_ENV = "SKILLRIG_SERVER_TOKEN";

/**
 * How many samples (test) or attempts (solve) are on the server at once when `--server` is given: enough to keep
 * many workers busy, few enough to stay well under the server's default queue_limit (1000).
 */
export const REMOTE_IN_FLIGHT = 64;
