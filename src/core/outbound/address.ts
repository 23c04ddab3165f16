import { isIPv4, isIPv6 } from "node:net";

/**
 * Address ranges an outbound fetch never reaches unless private addresses are allowed: everything that is not the
 * public internet (this host, the local networks, link-local and cloud metadata, carrier-grade NAT, multicast,
 * reserved), each with the name a refusal gives. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64,
 * 6to4) are judged by that IPv4 address.
 */

interface Range4 {
  base: number;
  bits: number;
  name: string;
}

const RANGES_4: readonly Range4[] = [
  { base: ipv4Number("0.0.0.0"), bits: 8, name: "unspecified (0.0.0.0/8)" },
  { base: ipv4Number("10.0.0.0"), bits: 8, name: "private (10.0.0.0/8)" },
  { base: ipv4Number("100.64.0.0"), bits: 10, name: "carrier-grade NAT (100.64.0.0/10)" },
  { base: ipv4Number("127.0.0.0"), bits: 8, name: "loopback (127.0.0.0/8)" },
  { base: ipv4Number("169.254.169.254"), bits: 32, name: "cloud metadata (169.254.169.254)" },
  { base: ipv4Number("169.254.0.0"), bits: 16, name: "link-local (169.254.0.0/16)" },
  { base: ipv4Number("172.16.0.0"), bits: 12, name: "private (172.16.0.0/12)" },
  { base: ipv4Number("192.0.0.0"), bits: 24, name: "IETF protocol assignments (192.0.0.0/24)" },
  { base: ipv4Number("192.168.0.0"), bits: 16, name: "private (192.168.0.0/16)" },
  { base: ipv4Number("198.18.0.0"), bits: 15, name: "benchmarking (198.18.0.0/15)" },
  { base: ipv4Number("224.0.0.0"), bits: 4, name: "multicast (224.0.0.0/4)" },
  { base: ipv4Number("240.0.0.0"), bits: 4, name: "reserved or broadcast (240.0.0.0/4)" },
];

function ipv4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function inRange4(value: number, range: Range4): boolean {
  const size = 2 ** (32 - range.bits);
  return Math.floor(value / size) === Math.floor(range.base / size);
}

/** The 16 bytes of an IPv6 address (a zone id such as %eth0 ignored), or null when it is not one. */
export function ipv6Bytes(address: string): Uint8Array | null {
  const plain = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!isIPv6(plain)) return null;
  let text = plain;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[0].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").filter((g) => g !== "").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  const fill = 8 - left.length - right.length;
  const words = rest === undefined ? left : [...left, ...new Array<number>(Math.max(0, fill)).fill(0), ...right];
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

function v4FromBytes(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

function blocked4(address: string): string | undefined {
  const value = ipv4Number(address);
  return RANGES_4.find((range) => inRange4(value, range))?.name;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const i = bit / 8;
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if ((bytes[i]! & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function blocked6(bytes: Uint8Array): string | undefined {
  const zeros = (n: number) => bytes.subarray(0, n).every((b) => b === 0);
  if (zeros(16)) return "unspecified (::)";
  if (zeros(15) && bytes[15] === 1) return "loopback (::1)";
  // IPv4-mapped ::ffff:a.b.c.d and the deprecated IPv4-compatible ::a.b.c.d
  if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return blocked4(v4FromBytes(bytes, 12));
  if (zeros(12)) return blocked4(v4FromBytes(bytes, 12));
  // NAT64 64:ff9b::/96 and 6to4 2002::/16 reach the IPv4 address they carry
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b], 96)) return blocked4(v4FromBytes(bytes, 12));
  if (startsWith(bytes, [0x20, 0x02], 16)) return blocked4(v4FromBytes(bytes, 2));
  if (startsWith(bytes, [0xfc], 7)) return "unique local (fc00::/7)";
  if (startsWith(bytes, [0xfe, 0x80], 10)) return "link-local (fe80::/10)";
  if (startsWith(bytes, [0xfe, 0xc0], 10)) return "site-local (fec0::/10)";
  if (startsWith(bytes, [0xff], 8)) return "multicast (ff00::/8)";
  if (startsWith(bytes, [0x01, 0x00], 64)) return "discard-only (100::/64)";
  return undefined;
}

/** Why an IP address is not on the public internet (its range's name), or undefined when it is. */
export function blockedRange(address: string): string | undefined {
  if (isIPv4(address)) return blocked4(address);
  const bytes = ipv6Bytes(address);
  if (bytes) return blocked6(bytes);
  return "not an IP address";
}

/** The host of a URL as an IP literal without brackets, or null when it is a name. */
export function ipLiteral(hostname: string): string | null {
  const plain = hostname.replace(/^\[|\]$/g, "");
  return isIPv4(plain) || isIPv6(plain) ? plain : null;
}

/** Whether two IP addresses are the same address, whatever their spelling (`::1` and `0:0::1`). */
export function sameAddress(a: string, b: string): boolean {
  const x = a.replace(/^\[|\]$/g, "");
  const y = b.replace(/^\[|\]$/g, "");
  if (isIPv4(x) || isIPv4(y)) return x === y;
  const bx = ipv6Bytes(x);
  const by = ipv6Bytes(y);
  return bx !== null && by !== null && bx.every((byte, i) => byte === by[i]);
}
