/**
 * Which addresses count as "this machine". The gateway binds without a token only to these, and
 * without a token it answers only requests whose `Host` names one of them, so a web page that
 * rebinds its own domain to 127.0.0.1 cannot drive the agent.
 */
import { isIPv4, isIPv6 } from "node:net";

/** True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped 127.x (`::ffff:127.0.0.1`). */
export function isLoopbackHost(host: string): boolean {
  const normalized = stripBrackets(host.trim().toLowerCase());
  if (normalized === "localhost" || normalized.endsWith(".localhost")) return true;
  if (isIPv4(normalized)) return normalized.startsWith("127.");
  if (isIPv6(normalized)) {
    if (normalized === "::1" || normalized === "0:0:0:0:0:0:0:1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(normalized);
    return mapped?.[1] !== undefined && isIPv4(mapped[1]) && mapped[1].startsWith("127.");
  }
  return false;
}

/** True when a `Host` header (`name[:port]`, `[v6][:port]`) names a loopback address. */
export function isLoopbackHostHeader(header: string | undefined): boolean {
  if (header === undefined || header === "") return false;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed?.[1] !== undefined) return isLoopbackHost(bracketed[1]);
  const name = header.replace(/:\d+$/, "");
  return isLoopbackHost(name);
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
