/**
 * Which host a request was addressed to, whether the Studio answers that host, and whether a request
 * that changes something came from the Studio's own pages. Pure: proxy.ts passes the headers and the
 * environment; the tests pass their own.
 *
 * - Proxy headers count only behind a proxy the operator declared (GNL_STUDIO_TRUST_PROXY=1). Without
 *   it, X-Forwarded-Host is whatever the client chose to send, so the host is the Host header alone.
 *   With it, the host is X-Forwarded-Host's last entry (the one the proxy in front of the Studio set),
 *   else Host.
 * - The Studio answers loopback names (localhost, 127.x.x.x, [::1]) and the names in
 *   GNL_STUDIO_ALLOWED_HOSTS (comma-separated; `name` for any port, `name:port` for one). A page of
 *   another name that resolves to this machine (DNS rebinding) is refused before anything runs.
 * - A request that changes something must carry an Origin naming that same host.
 */
import { isLoopbackHost } from './session-cookie';

type Env = Record<string, string | undefined>;

export interface HostPolicy {
  trustProxy: boolean;
  /** Allowed names beyond loopback, lower-case; with a port when only that port is allowed. */
  allowed: readonly { name: string; port?: string }[];
}

/** A host name or address as Host carries it, optionally with `:port`: letters, digits, dots, dashes, IPv6 in brackets. */
const HOST_ENTRY = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::(\d{1,5}))?$/;

export class HostPolicyError extends Error {
  override name = 'HostPolicyError';
}

function splitHost(host: string): { name: string; port?: string } | undefined {
  const value = host
    .trim()
    .toLowerCase()
    .replace(/\.(?=:|$)/, '');
  const match = HOST_ENTRY.exec(value);
  if (!match) return undefined;
  const port = match[1];
  const name = port === undefined ? value : value.slice(0, -(port.length + 1));
  return port === undefined ? { name } : { name, port };
}

export function hostPolicyFromEnv(env: Env = process.env): HostPolicy {
  const trust = (env.GNL_STUDIO_TRUST_PROXY ?? '').trim().toLowerCase();
  const entries = (env.GNL_STUDIO_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const allowed = entries.map((entry) => {
    const parsed = splitHost(entry);
    if (!parsed) {
      throw new HostPolicyError(
        `GNL_STUDIO_ALLOWED_HOSTS: ${JSON.stringify(entry)} is not a host name (give names like studio.example.com or studio.example.com:8443, comma-separated).`,
      );
    }
    return parsed;
  });
  return { trustProxy: trust === '1' || trust === 'true', allowed };
}

function lastEntry(header: string | null | undefined): string | undefined {
  const entries = (header ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return entries.at(-1);
}

/** The host the browser addressed: Host, or behind a trusted proxy the host it forwarded. */
export function requestHost(headers: { host?: string | null; forwardedHost?: string | null }, policy: HostPolicy): string | undefined {
  const forwarded = policy.trustProxy ? lastEntry(headers.forwardedHost) : undefined;
  const host = forwarded ?? headers.host?.trim();
  return host ? host.toLowerCase() : undefined;
}

export function hostAllowed(host: string | undefined, policy: HostPolicy): boolean {
  if (!host) return false;
  const parsed = splitHost(host);
  if (!parsed) return false;
  if (isLoopbackHost(host)) return true;
  return policy.allowed.some((entry) => entry.name === parsed.name && (entry.port === undefined || entry.port === parsed.port));
}

/** Whether `origin` (an Origin header) is this host's own: same host and port. `null` and absent are not. */
export function originMatches(origin: string | null | undefined, host: string | undefined): boolean {
  if (!origin || origin === 'null' || !host) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  return originHost === host.toLowerCase();
}
