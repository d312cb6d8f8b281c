/** RFC 6901 JSON pointers, used in every error that points into a JSON document. */

export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Builds a pointer from path tokens: `pointer("tests", 3, "input")` is `/tests/3/input`. */
export function pointer(...tokens: Array<string | number>): string {
  return tokens.map((t) => `/${escapePointerToken(t)}`).join("");
}

/**
 * Turns a pointer into a dotted key path for config messages: `/server/port` -> `server.port`; a key that is not a
 * plain name is quoted in brackets, as in JavaScript: `/server/tenants/team a` -> `server.tenants["team a"]`.
 */
export function pointerToKeyPath(ptr: string): string {
  if (ptr === "") return "(root)";
  return ptr
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((t, i) => (/^\d+$/.test(t) ? `[${t}]` : /^[A-Za-z_$][\w$-]*$/.test(t) ? (i === 0 ? t : `.${t}`) : `[${JSON.stringify(t)}]`))
    .join("");
}
