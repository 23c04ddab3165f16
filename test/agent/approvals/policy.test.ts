import { expect, test } from "bun:test";
import { AutonomySchema } from "../../../src/config/schema.ts";
import { globMatches, permissionFor, riskOf } from "../../../src/agent/approvals/index.ts";

const autonomy = (raw: Record<string, unknown>) => AutonomySchema.parse(raw);

test("the default level is supervised with a 300 s approval timeout", () => {
  expect(autonomy({})).toEqual({ level: "supervised", approval_timeout_s: 300, tools: {} });
});

test("approval_timeout_s from 1 to 86400 passes; 0 and 86401 fail", () => {
  expect(autonomy({ approval_timeout_s: 1 }).approval_timeout_s).toBe(1);
  expect(autonomy({ approval_timeout_s: 86_400 }).approval_timeout_s).toBe(86_400);
  expect(() => autonomy({ approval_timeout_s: 0 })).toThrow();
  expect(() => autonomy({ approval_timeout_s: 86_401 })).toThrow();
});

test("built-in tools have their risk classes; a declared class wins; an undeclared plugin tool is unknown", () => {
  expect(riskOf("file_read", undefined)).toBe("read");
  expect(riskOf("file_write", undefined)).toBe("write");
  expect(riskOf("shell", undefined)).toBe("execute");
  expect(riskOf("http_request", undefined)).toBe("network");
  expect(riskOf("mcp__fs__read", "read")).toBe("read");
  expect(riskOf("echo_upper", undefined)).toBe("unknown");
});

test("read_only runs read tools and refuses the rest; supervised asks; full allows everything", () => {
  const perm = (level: string, name: string) => permissionFor(autonomy({ level }), name, riskOf(name, undefined)).permission;
  expect([perm("read_only", "file_read"), perm("read_only", "file_write"), perm("read_only", "echo_upper")]).toEqual(["allow", "deny", "deny"]);
  expect([perm("supervised", "file_read"), perm("supervised", "shell"), perm("supervised", "echo_upper")]).toEqual(["allow", "ask", "ask"]);
  // the agent's own memory is not asked about under supervised
  expect(perm("supervised", "memory_store")).toBe("allow");
  expect([perm("full", "shell"), perm("full", "echo_upper")]).toEqual(["allow", "allow"]);
});

test("per-tool overrides: the exact name wins, then the most specific pattern; the setting is named", () => {
  const config = autonomy({ level: "full", tools: { shell: "ask", "mcp__*": "allow", "mcp__fs__*": "deny", http_request: "deny" } });
  expect(permissionFor(config, "shell", "execute")).toEqual({ permission: "ask", setting: '[autonomy.tools] "shell" = "ask"' });
  expect(permissionFor(config, "mcp__fs__write", "unknown").permission).toBe("deny");
  expect(permissionFor(config, "mcp__web__get", "unknown").permission).toBe("allow");
  expect(permissionFor(config, "file_write", "write")).toEqual({ permission: "allow", setting: '[autonomy] level = "full"' });
  // an override lets read_only run a tool it would refuse
  expect(permissionFor(autonomy({ level: "read_only", tools: { shell: "allow" } }), "shell", "execute").permission).toBe("allow");
});

test("patterns: * matches any text, none included; other characters match themselves", () => {
  expect(globMatches("mcp__fs__*", "mcp__fs__")).toBe(true);
  expect(globMatches("mcp__fs__*", "mcp__fsx__a")).toBe(false);
  expect(globMatches("*_write", "file_write")).toBe(true);
  expect(globMatches("a*b*c", "abc")).toBe(true);
  expect(globMatches("a*b*c", "acb")).toBe(false);
  expect(globMatches("ab*ba", "aba")).toBe(false);
});
