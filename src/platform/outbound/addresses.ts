// Which IP addresses an outgoing call may reach: only the public internet. Private, loopback,
// link-local, shared (carrier-grade NAT), documentation, benchmarking, multicast and reserved
// ranges are refused, in IPv4 and IPv6 (with IPv4-mapped, 6to4, Teredo and NAT64 forms refused
// whole: they can carry any IPv4 address, a private one included).
import { BlockList, isIP } from 'node:net'

const refused = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  refused.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  refused.addSubnet(net, bits, 'ipv6')

/**
 * A URL's host as name resolution will see it: the URL parser has already lower-cased it, decoded
 * its percent-escapes, mapped full-width and other compatible characters (IDNA) and normalised IPv4
 * forms (`0x7f.1`, `127.0.0.1.`); what is left is the trailing dot of a fully qualified name
 * (`localhost.` is `localhost`) and the brackets of an IPv6 literal.
 */
export function canonicalHost(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return host.replace(/\.+$/, '').toLowerCase()
}

/** True when `address` (an IP literal) is on the public internet; false for anything else. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address)
  // a zone index (`fe80::1%eth0`) only exists for link-local scopes
  if (family === 0 || address.includes('%')) return false
  if (family === 6 && isV4Mapped(address)) return false
  return !refused.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** ::ffff:0:0/96 (checked by hand: BlockList matches every IPv4 address against that range). */
function isV4Mapped(address: string): boolean {
  const normal = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  return /^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(normal)
}
