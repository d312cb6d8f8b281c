/**
 * A loopback TCP proxy in front of a real redis-server that can hold back what Redis sends to one connection, so a
 * test can put a reply (or a pub/sub message) late on purpose and check a race deterministically. It forwards
 * bytes untouched; it only looks at what a client sends to pick the connection (RESP commands are plain text).
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface ProxiedConnection {
  /** Everything this client sent so far, lower-cased (RESP is text, so command names and keys can be matched). */
  sent: string;
  /** Whether the client has subscribed (it is a pub/sub connection). */
  subscriber: boolean;
  /** What Redis sent while the connection was held, not yet passed on. */
  held: Buffer[] | undefined;
  client: Socket;
}

export class RedisProxy {
  readonly #connections = new Set<ProxiedConnection>();
  #trigger: { test: (text: string) => boolean; resolve: (c: ProxiedConnection) => void } | undefined;

  private constructor(
    readonly server: Server,
    readonly url: string,
  ) {}

  static async start(redisPort: number): Promise<RedisProxy> {
    // The server's handler needs the proxy, which needs the server's port: a holder breaks the circle.
    const holder: { proxy?: RedisProxy } = {};
    const server = createServer((client) => holder.proxy?.#accept(client, redisPort));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    holder.proxy = new RedisProxy(server, `redis://127.0.0.1:${port}`);
    return holder.proxy;
  }

  /**
   * Resolves with the first connection whose client sends a chunk that `test` accepts (lower-cased text). From
   * that chunk on, Redis's answers to that connection and everything sent to any pub/sub connection are held
   * until `release`.
   */
  holdFrom(test: (text: string) => boolean): Promise<ProxiedConnection> {
    return new Promise((resolve) => {
      this.#trigger = { test, resolve };
    });
  }

  /** Passes on what was held for `connection` (or for every connection) and stops holding it. */
  release(connection?: ProxiedConnection): void {
    for (const c of connection ? [connection] : this.#connections) {
      const held = c.held;
      c.held = undefined;
      if (held && held.length > 0 && !c.client.destroyed) c.client.write(Buffer.concat(held));
    }
  }

  async close(): Promise<void> {
    this.release();
    for (const c of this.#connections) c.client.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: Socket, redisPort: number): void {
    const upstream = createConnection({ host: "127.0.0.1", port: redisPort });
    const connection: ProxiedConnection = { sent: "", subscriber: false, held: undefined, client };
    this.#connections.add(connection);
    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1").toLowerCase();
      connection.sent += text;
      if (text.includes("subscribe")) connection.subscriber = true;
      const trigger = this.#trigger;
      if (trigger?.test(text)) {
        this.#trigger = undefined;
        connection.held = [];
        for (const c of this.#connections) if (c.subscriber) c.held ??= [];
        trigger.resolve(connection);
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (connection.held) connection.held.push(chunk);
      else client.write(chunk);
    });
    const end = () => {
      this.#connections.delete(connection);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  }
}
