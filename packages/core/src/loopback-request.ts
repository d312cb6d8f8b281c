/**
 * The DNS-rebinding guard of a server bound to loopback (`skillrig view`, `skillrig serve`). A web page can make
 * the browser send requests to 127.0.0.1 under a name of its own (it rebinds its name to 127.0.0.1); such a request
 * carries the page's name in `Host`, so a loopback server answers only requests addressed to a loopback name with its
 * own port, and refuses an `Origin` other than its own (another site driving it through a form or a script).
 */

export interface LoopbackRequest {
  host?: string;
  origin?: string;
  method?: string;
}

export interface LoopbackRefusal {
  code: "forbidden_host" | "forbidden_origin";
  message: string;
}

/** The `Host` values a loopback server on `boundHost:port` answers to. */
export function loopbackHosts(boundHost: string, port: number): Set<string> {
  const bound = boundHost.includes(":") && !boundHost.startsWith("[") ? `[${boundHost}]` : boundHost;
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${bound}:${port}`]);
}

/**
 * Why a request to a loopback server must be refused, or undefined when it may be answered. `Origin` is checked on
 * every method (`origin: "all"`) or only on those that change something (`"unsafe"`, for a server whose own pages
 * fetch from it).
 */
export function loopbackRequestRefusal(
  request: LoopbackRequest,
  server: { host: string; port: number; origin: "all" | "unsafe" },
): LoopbackRefusal | undefined {
  const host = request.host ?? "";
  if (!loopbackHosts(server.host, server.port).has(host.toLowerCase())) {
    return {
      code: "forbidden_host",
      message: `requests must be addressed to this server (Host ${server.host}:${server.port} or localhost:${server.port}), not "${host || "(none)"}"`,
    };
  }
  const method = (request.method ?? "GET").toUpperCase();
  const checked = server.origin === "all" || (method !== "GET" && method !== "HEAD");
  if (checked && request.origin !== undefined && request.origin !== `http://${host}`) {
    return {
      code: "forbidden_origin",
      message: `requests must come from this server's own origin (http://${host}), not ${request.origin}`,
    };
  }
  return undefined;
}
