import type { ApprovalRequest } from "../../../src/agent/approvals/index.ts";

/** A shell call asking for approval from the gateway, waiting at most `timeoutMs`. */
export function shellRequest(timeoutMs: number): ApprovalRequest {
  return {
    sessionId: "s1",
    channel: "gateway",
    sender: null,
    tool: "shell",
    risk: "execute",
    argsSha256: "ab",
    preview: '{"command":["ls"]}',
    timeoutMs,
  };
}
