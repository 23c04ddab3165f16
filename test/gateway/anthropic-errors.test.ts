import { describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { errorResponseFor } from "../../src/gateway/errors.ts";

async function answer(path: string, error: PrxError) {
  const response = errorResponseFor(path, error, { "x-request-id": "req-1" });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("errors under /v1/messages are Anthropic's", () => {
  test("statuses and types as Anthropic's API answers them", async () => {
    const cases: Array<[PrxError, number, string]> = [
      [new PrxError("BAD_REQUEST", "bad"), 400, "invalid_request_error"],
      [new PrxError("UNSUPPORTED_MEDIA_TYPE", "type"), 415, "invalid_request_error"],
      [new PrxError("UNAUTHORIZED", "who"), 401, "authentication_error"],
      [new PrxError("FORBIDDEN", "no"), 403, "permission_error"],
      [new PrxError("MODEL_NOT_FOUND", "which"), 404, "not_found_error"],
      [new PrxError("PAYLOAD_TOO_LARGE", "big"), 413, "request_too_large"],
      [new PrxError("RATE_LIMITED", "slow"), 429, "rate_limit_error"],
      [new PrxError("INTERNAL", "oops"), 500, "api_error"],
      [new PrxError("PROVIDER_HTTP", "upstream"), 500, "api_error"],
      [new PrxError("PROVIDER_TIMEOUT", "late"), 500, "api_error"],
      [new PrxError("ABORTED", "shutting down"), 529, "overloaded_error"],
    ];
    for (const [error, status, type] of cases) {
      const got = await answer("/v1/messages", error);
      expect([got.status, got.body.error.type], error.code).toEqual([status, type]);
      expect(got.body).toMatchObject({ type: "error", request_id: "req-1" });
    }
  });

  test("the hint follows the message; count_tokens answers alike; other /v1/ routes keep OpenAI's shape", async () => {
    const error = new PrxError("BAD_REQUEST", "bad field", { hint: "send a good one" });
    expect((await answer("/v1/messages/count_tokens", error)).body.error.message).toBe("bad field (send a good one)");
    expect((await answer("/v1/messagesx", error)).body.error).toMatchObject({ type: "invalid_request_error", code: "BAD_REQUEST" });
    expect((await answer("/v1/chat/completions", new PrxError("PROVIDER_HTTP", "x"))).status).toBe(502);
  });
});
