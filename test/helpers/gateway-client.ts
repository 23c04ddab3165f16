/**
 * Requests to a running gateway with a bearer token, each given up after `answerWithinMs` (then null, for tests that
 * assert a gateway answers while something it depends on is away).
 */
export interface GatewayClient {
  request(path: string, init?: RequestInit): Promise<Response | null>;
  /** POST a message to a session: the status and the reply, or null when not answered in time. */
  turn(session: string, message: string): Promise<{ status: number; reply: string } | null>;
}

export function gatewayClient(url: () => string, token: () => string, answerWithinMs: number): GatewayClient {
  async function request(path: string, init: RequestInit = {}): Promise<Response | null> {
    try {
      const headers = { authorization: `Bearer ${token()}`, "content-type": "application/json", ...init.headers };
      return await fetch(`${url()}${path}`, { ...init, headers, signal: AbortSignal.timeout(answerWithinMs) });
    } catch {
      return null; // not answered in time (or refused): the caller asserts on that
    }
  }
  return {
    request,
    async turn(session, message) {
      const response = await request(`/api/sessions/${session}/message`, { method: "POST", body: JSON.stringify({ message }) });
      if (!response) return null;
      return { status: response.status, reply: String(((await response.json()) as { reply?: string }).reply) };
    },
  };
}
