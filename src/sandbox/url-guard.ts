// Where a webhook may point (sandbox.md): https anywhere public, http only to loopback, and no
// other non-public destination unless --allow-private-webhooks. Judged on the resolved
// addresses, all of them, never on the URL's text: 2130706433, 0x7f.1, [::ffff:10.0.0.5] and a
// name that resolves to 10.0.0.5 are all judged by where they really go.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isLoopbackAddress, PLAIN_HTTP_RULE } from '../core/loopback.js';

export type Resolver = (hostname: string) => Promise<string[]>;

export const defaultResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

function ranges(list: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const block = new BlockList();
  for (const [net, prefix, type] of list) block.addSubnet(net, prefix, type);
  return block;
}

// An IPv4 rule in a BlockList also matches the IPv4-mapped IPv6 form (::ffff:a.b.c.d).
const ANY_IPV4 = ranges([['0.0.0.0', 0, 'ipv4']]);
const GLOBAL_UNICAST_V6 = ranges([['2000::', 3, 'ipv6']]);

// Non-public ranges, named for the error message. IPv6 outside 2000::/3 is refused as reserved.
const NON_PUBLIC: [string, BlockList][] = [
  [
    'unspecified',
    ranges([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  [
    'private',
    ranges([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    ranges([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  ['carrier-grade NAT', ranges([['100.64.0.0', 10, 'ipv4']])],
  [
    'multicast',
    ranges([
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ]),
  ],
  [
    'reserved',
    ranges([
      ['240.0.0.0', 4, 'ipv4'], // includes the broadcast address 255.255.255.255
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['192.88.99.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['2001::', 23, 'ipv6'], // protocol assignments, Teredo included
      ['2001:db8::', 32, 'ipv6'],
      ['2002::', 16, 'ipv6'], // 6to4 can wrap any IPv4 address
      ['3fff::', 20, 'ipv6'],
    ]),
  ],
];

export type AddressClass = { kind: 'loopback' } | { kind: 'public' } | { kind: 'non-public'; label: string };

export function classifyAddress(address: string): AddressClass {
  // A zone id (fe80::1%eth0) only exists on link-local addresses.
  if (address.includes('%')) return { kind: 'non-public', label: 'link-local' };
  const family = isIP(address);
  if (family === 0) return { kind: 'non-public', label: 'unrecognised' };
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (isLoopbackAddress(address)) return { kind: 'loopback' };
  for (const [label, list] of NON_PUBLIC) {
    if (list.check(address, type)) return { kind: 'non-public', label };
  }
  if (family === 6 && !ANY_IPV4.check(address, 'ipv6') && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) {
    return { kind: 'non-public', label: 'reserved' };
  }
  return { kind: 'public' };
}

export interface UrlPolicy {
  allowPrivate: boolean;
  resolveHost: Resolver;
}

export type UrlVerdict = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

const RESOLVE_TIMEOUT_MS = 5000;

/** The syntax part: a URL object, or why it is not a webhook URL. */
export function parseWebhookUrl(raw: string): URL | string {
  if (raw.length > 2048) return 'the URL is longer than 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `the URL must be ${PLAIN_HTTP_RULE}`;
  if (url.username !== '' || url.password !== '') return 'credentials do not belong in a webhook URL';
  if (url.hostname === '') return 'the URL has no host';
  return url;
}

async function resolve(hostname: string, resolver: Resolver): Promise<string[] | string> {
  // The URL parser has already turned numeric IPv4 forms into dotted quads.
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) !== 0) return [bare];
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), RESOLVE_TIMEOUT_MS);
    });
    const addresses = await Promise.race([resolver(bare), timeout]);
    return addresses.length > 0 ? addresses : `${bare} does not resolve to any address`;
  } catch {
    return `${bare} does not resolve`;
  } finally {
    clearTimeout(timer);
  }
}

/** The whole check, made at creation and again before every delivery attempt. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<UrlVerdict> {
  const url = parseWebhookUrl(raw);
  if (typeof url === 'string') return { ok: false, reason: url };
  const addresses = await resolve(url.hostname, policy.resolveHost);
  if (typeof addresses === 'string') return { ok: false, reason: addresses };
  for (const address of addresses) {
    const cls = classifyAddress(address);
    if (cls.kind === 'non-public' && !policy.allowPrivate) {
      return {
        ok: false,
        reason: `${url.hostname} goes to a ${cls.label} address (${address}); only public addresses and loopback are allowed`,
      };
    }
    if (url.protocol === 'http:' && cls.kind === 'public') {
      return { ok: false, reason: `plain http to ${url.hostname} is refused: use ${PLAIN_HTTP_RULE}` };
    }
  }
  return { ok: true, url, addresses };
}

/**
 * The subscriptions of a state (PUT /_sandbox/state, --fixtures) under the rule of POST /webhooks
 * (a state brought in http://10.0.0.5, http://169.254.169.254/… and
 * javascript: URLs that POST /webhooks refuses). The first refused, by its place in the list.
 */
export async function firstRefusedUrl(urls: readonly string[], policy: UrlPolicy): Promise<{ index: number; reason: string } | null> {
  const verdicts = await Promise.all(urls.map((url) => checkWebhookUrl(url, policy)));
  const index = verdicts.findIndex((v) => !v.ok);
  const refused = verdicts[index];
  return refused && !refused.ok ? { index, reason: refused.reason } : null;
}
