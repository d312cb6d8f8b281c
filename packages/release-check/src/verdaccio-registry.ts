/**
 * A private npm registry on loopback, as a team runs one for its internal packages: Verdaccio, started in this
 * process through its `runServer` API (its own command refuses Node < 22; the API runs on every Node skillrig
 * supports), storage in `dir`, no uplinks (it serves only what is published to it), reading open, publishing by a
 * user created over its API for this run, whose token is written to `dir/npmrc` for the publishing commands only.
 */
import type { Server } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runServer } from "verdaccio";

export interface LocalRegistry {
  /** `http://127.0.0.1:PORT/`, with the trailing slash npm writes in its config keys. */
  url: string;
  /** An npm user config with the registry and the publishing user's token (for publishing commands only). */
  userconfig: string;
  /** Stops serving; resolves once the port is closed. */
  stop: () => Promise<void>;
}

/** Verdaccio's config: storage and the user file in `dir`, no uplinks, every package readable and publishable by a logged-in user. */
function verdaccioConfig(dir: string): string {
  return `storage: ${JSON.stringify(join(dir, "storage"))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(dir, "htpasswd"))}
uplinks: {}
packages:
  "**":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
server:
  keepAliveTimeout: 60
max_body_size: 200mb
log: { type: stdout, format: json, level: error }
`;
}

function listen(app: { listen: (port: number, host: string, done: () => void) => Server }, port: number): Promise<Server> {
  return new Promise((resolvePromise, reject) => {
    const server = app.listen(port, "127.0.0.1", () => resolvePromise(server));
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${port} on 127.0.0.1 is in use: stop what serves there, or choose another with --port N (0: any free port)`)
          : error,
      );
    });
  });
}

/** Starts Verdaccio on 127.0.0.1:`port` (0: a port the kernel picks) and creates this run's publishing user. */
export async function startVerdaccio(dir: string, port: number): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, "config.yaml");
  writeFileSync(configFile, verdaccioConfig(dir));
  const server = await listen(await runServer(configFile), port);
  // Keep-alive sockets from npm would hold close() open; Ctrl-C must stop at once.
  const stop = () =>
    new Promise<void>((resolvePromise) => {
      server.close(() => resolvePromise());
      server.closeAllConnections();
    });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}/`;
  try {
    const name = `skillrig-release-${process.pid}`;
    const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password: `pw-${process.pid}-${Date.now()}-${Math.random()}`, type: "user", roles: [] }),
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || !body.token)
      throw new Error(`Verdaccio at ${url} did not create a user: ${response.status} ${JSON.stringify(body)}`);
    const userconfig = join(dir, "npmrc");
    writeFileSync(userconfig, `registry=${url}\n${url.replace(/^http:/, "")}:_authToken=${body.token}\n`, { mode: 0o600 });
    return { url, userconfig, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
