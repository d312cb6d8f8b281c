/**
 * The only way out of an agent jail: the jail has its own network namespace (nothing but its own loopback), and
 * the runner listens on a Unix socket bound into the jail that forwards every connection to ONE host:port, the
 * configured model endpoint. Inside the jail a tiny relay (run by the engine's own node) listens on
 * 127.0.0.1:<endpoint port> and pipes each connection to that socket, so the engine's unchanged base URL reaches
 * the model and nothing else: any other address has no route, and the socket cannot be told to go elsewhere
 * (it forwards raw bytes to a destination fixed here). TLS is end to end: the relay never sees plaintext.
 */
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ModelEndpoint {
  /** Host name or IP the engine connects to (from its base URL). */
  host: string;
  port: number;
}

/** Host and port of an http(s) base URL; undefined when it is not one. */
export function modelEndpointOf(baseUrl: string | undefined): ModelEndpoint | undefined {
  if (!baseUrl) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { host, port };
}

export interface EgressRelay {
  /** The folder holding the socket: bind it into the jail at the same path. */
  folder: string;
  socketPath: string;
  endpoint: ModelEndpoint;
  /** Connections the jail opened through the relay. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * Starts the runner-side half: a Unix socket that forwards to `endpoint` only. `jailGid`: the jail runs as a per-run
 * uid (root runner) whose group is this: the folder (0710) and the socket (0660) stay root's, open to that group
 * alone, so the jail can connect but not replace the socket, and no other run's uid can reach it.
 */
export async function startEgressRelay(endpoint: ModelEndpoint, jailGid?: number): Promise<EgressRelay> {
  const folder = mkdtempSync(join(tmpdir(), "skillrig-egress-"));
  const socketPath = join(folder, "model.sock");
  const open = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((inside) => {
    connections += 1;
    const outside = createConnection({ host: endpoint.host, port: endpoint.port });
    open.add(inside);
    open.add(outside);
    const drop = () => {
      inside.destroy();
      outside.destroy();
    };
    inside.on("error", drop).on("close", () => open.delete(inside));
    outside.on("error", drop).on("close", () => open.delete(outside));
    inside.pipe(outside);
    outside.pipe(inside);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  if (jailGid !== undefined) {
    chownSync(socketPath, process.getuid?.() ?? 0, jailGid);
    chmodSync(socketPath, 0o660);
    chownSync(folder, process.getuid?.() ?? 0, jailGid);
    chmodSync(folder, 0o710);
  }
  return {
    folder,
    socketPath,
    endpoint,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => {
          rmSync(folder, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

/**
 * The jail-side half, run by node as the jail's first process: `node -e RELAY_SCRIPT <port> <socket> <file> ...args`.
 * It listens on 127.0.0.1:<port> (and ::1), then starts the engine and ends with the engine's exit status. The
 * engine is its child, so when the engine ends the relay ends and the pid namespace (with anything the agent left
 * behind) goes with it.
 */
export const RELAY_SCRIPT = `
const net = require("node:net");
const { spawn } = require("node:child_process");
const [port, socketPath, file, ...args] = process.argv.slice(1);
const relay = (inside) => {
  const outside = net.createConnection(socketPath);
  const drop = () => { inside.destroy(); outside.destroy(); };
  inside.on("error", drop); outside.on("error", drop);
  inside.pipe(outside); outside.pipe(inside);
};
const servers = ["127.0.0.1", "::1"].map((host) => new Promise((resolve) => {
  const server = net.createServer(relay);
  server.once("error", () => resolve(undefined));
  server.listen(Number(port), host, () => resolve(server));
}));
Promise.all(servers).then((up) => {
  if (!up[0]) { process.stderr.write("skillrig jail: cannot listen on 127.0.0.1:" + port + "\\n"); process.exit(125); }
  const child = spawn(file, args, { stdio: "inherit" });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => { process.stderr.write("skillrig jail: cannot start " + file + ": " + e.message + "\\n"); process.exit(127); });
  child.on("exit", (code, signal) => process.exit(code === null ? 128 + (require("node:os").constants.signals[signal] || 9) : code));
});
`;
