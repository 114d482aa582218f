// The one rule for where rfs lets an API key, a signed delivery or a webhook go in clear text
// (cli.md, Connection and credentials; sandbox.md, Webhooks): https, or plain http only to a
// loopback host. Loopback is this machine: localhost and *.localhost, 127.0.0.0/8 and ::1,
// IPv4-mapped forms included. The CLI judges a URL's host; the sandbox judges the addresses a
// name resolves to (sandbox/url-guard.ts); both ask isLoopbackAddress.
import type { BlockList } from 'node:net';
import { UsageError } from './errors.js';
import { sanitize } from './sanitize.js';

const LOOPBACK_HOSTS = 'localhost, 127.0.0.1, [::1]';
/** The rule in the words every message and hint uses. */
export const HTTP_ONLY_TO_LOOPBACK = `http:// only to a loopback host: ${LOOPBACK_HOSTS}`;
export const PLAIN_HTTP_RULE = `https://, or ${HTTP_ONLY_TO_LOOPBACK}`;

// node:net is read on the first question, not when this module loads: every command imports
// the rule (through the settings), and most never ask it.
let loopback: { list: BlockList; isIP: (input: string) => number } | undefined;
function loopbackList(): NonNullable<typeof loopback> {
  if (loopback) return loopback;
  const { BlockList: List, isIP } = process.getBuiltinModule('node:net');
  // An IPv4 rule in a BlockList also matches the IPv4-mapped IPv6 form (::ffff:127.0.0.1).
  const list = new List();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  loopback = { list, isIP };
  return loopback;
}

/** An IP address (no brackets) on this machine. */
export function isLoopbackAddress(address: string): boolean {
  const { list, isIP } = loopbackList();
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A dotted quad as node:net's isIP takes it (no leading zeros), its first number captured. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A host as a URL or --host gives it: a name, an IPv4 address, or IPv6 with or without brackets. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  // A name or an IPv4 address is decided here, without the BlockList, whose making loads two
  // of Node's modules on the path of every command (bench/README.md, How rfs starts); IPv6
  // (its mapped and long forms) is left to it. The URL parser has already turned forms like
  // 2130706433 or 0x7f.1 into dotted quads.
  if (!h.includes(':')) return IPV4.exec(h)?.[1] === '127';
  return isLoopbackAddress(h);
}

export interface Destination {
  /** What the value is called in messages: a flag (`--to`) or a setting (`base URL`). */
  name: string;
  /** A URL of the right kind, shown when the value is not a URL at all. */
  example: string;
  /** Why plain http elsewhere is refused: "refusing plain http to <host>: <why>". */
  why?: string;
  /** Set for a destination that must be this machine whatever the scheme: why. */
  loopbackOnly?: string;
  /** Credentials in the URL are the receiver's business (webhooks create). */
  allowCredentials?: boolean;
  /** Advice for every refusal instead of the rule itself. */
  hint?: string;
}

/** `value` as a URL that keeps the rule; a UsageError (exit 2) naming `name` otherwise. */
export function checkDestination(value: string, d: Destination): URL {
  const hint =
    d.hint ??
    (d.loopbackOnly === undefined ? `use ${PLAIN_HTTP_RULE}` : `use a loopback host (${LOOPBACK_HOSTS}), e.g. ${d.name} ${d.example}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid ${d.name} ${JSON.stringify(sanitize(value))}: not an absolute URL; expected a URL such as ${d.example}`, {
      hint: d.hint,
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    const allowed = d.loopbackOnly === undefined ? 'https (or http to a loopback host)' : 'http or https';
    throw new UsageError(`invalid ${d.name}: the scheme must be ${allowed}, not ${sanitize(url.protocol.replace(':', ''))}`, { hint });
  }
  const host = sanitize(url.hostname);
  if (!isLoopbackHost(url.hostname)) {
    if (d.loopbackOnly !== undefined) throw new UsageError(`refusing ${d.name} ${host}: ${d.loopbackOnly}`, { hint });
    if (url.protocol === 'http:') {
      const message =
        d.why === undefined ? `invalid ${d.name}: plain http to ${host} is refused` : `refusing plain http to ${host}: ${d.why}`;
      throw new UsageError(message, { hint });
    }
  }
  if (!d.allowCredentials && (url.username || url.password))
    throw new UsageError(`invalid ${d.name}: credentials do not belong in the URL`);
  return url;
}
