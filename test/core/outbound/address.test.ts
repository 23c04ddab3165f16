/** Which addresses the outbound guard treats as not public, each with its range's name. */
import { describe, expect, test } from "bun:test";
import { blockedRange } from "../../../src/core/outbound/index.ts";

const REFUSED: Array<[string, string]> = [
  ["0.0.0.0", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "carrier-grade NAT"],
  ["100.127.255.255", "carrier-grade NAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "cloud metadata"],
  ["169.254.0.1", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.170", "IETF"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["224.0.0.251", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:169.254.169.254", "cloud metadata"],
  ["::ffff:10.1.2.3", "private"],
  ["::10.1.2.3", "private"],
  ["64:ff9b::a9fe:a9fe", "cloud metadata"],
  ["2002:c0a8:0101::1", "private"],
  ["fc00::1", "unique local"],
  ["fd00:ec2::254", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
];

const PUBLIC = ["1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "169.253.255.255", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:0808:0808::1"];

describe("blockedRange", () => {
  for (const [address, name] of REFUSED) {
    test(`${address} is refused as ${name}`, () => {
      expect(blockedRange(address)).toContain(name);
    });
  }

  test("public addresses, including the neighbours of each refused range, pass", () => {
    expect(PUBLIC.map((address) => [address, blockedRange(address)])).toEqual(PUBLIC.map((address) => [address, undefined]));
  });

  test("something that is not an IP address is refused", () => {
    expect(blockedRange("example.com")).toBe("not an IP address");
  });
});
