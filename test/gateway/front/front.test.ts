/** The gateway's front, without a socket: connection caps, the body deadline (hand-driven clock), routable URLs. */
import { describe, expect, test } from "bun:test";
import { readLimited } from "../../../src/gateway/body.ts";
import {
  ConnectionCaps,
  factsOf,
  guardedFetch,
  peerOf,
  routableUrl,
  withinBodyDeadline,
  type FrontServer,
  type Timer,
} from "../../../src/gateway/front/index.ts";
import { BODY_DEADLINE_MS, CONNECTIONS_MAX, CONNECTIONS_PER_ADDRESS_MAX, GATEWAY_IDLE_TIMEOUT_S, GATEWAY_REQUEST_TIMEOUT_S } from "../../../src/gateway/limits.ts";

/** A clock that moves only when told; timers due by then run. */
class HandTimer implements Timer {
  private at = 0;
  private readonly due: { at: number; run: () => void }[] = [];
  now = () => this.at;
  after(ms: number, run: () => void): () => void {
    const entry = { at: this.at + ms, run };
    this.due.push(entry);
    return () => void this.due.splice(this.due.indexOf(entry), 1);
  }
  advance(to: number): void {
    this.at = to;
    for (const entry of this.due.filter((e) => e.at <= to)) {
      this.due.splice(this.due.indexOf(entry), 1);
      entry.run();
    }
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

class FakeServer implements FrontServer {
  readonly timeouts: number[] = [];
  constructor(
    readonly port: number | undefined = 8080,
    readonly url = new URL("http://127.0.0.1:8080/"),
    private readonly peer = "10.0.0.9",
  ) {}
  requestIP() {
    return { address: this.peer };
  }
  timeout(_request: Request, seconds: number) {
    this.timeouts.push(seconds);
  }
}

describe("connection caps", () => {
  test(`one address: ${CONNECTIONS_PER_ADDRESS_MAX} in flight are admitted, one more is refused until one ends`, () => {
    const caps = new ConnectionCaps();
    for (let i = 0; i < CONNECTIONS_PER_ADDRESS_MAX; i++) expect(caps.acquire("a")).toBeNull();
    expect(caps.acquire("a")).toBe("address");
    expect(caps.acquire("a", true)).toBe("address");
    expect(caps.acquire("b")).toBeNull();
    caps.release("a");
    expect(caps.acquire("a")).toBeNull();
  });

  test(`all addresses: ${CONNECTIONS_MAX} in flight are admitted, one more is refused; /health is spared`, () => {
    const caps = new ConnectionCaps();
    for (let i = 0; i < CONNECTIONS_MAX; i++) expect(caps.acquire(`10.0.${i >> 8}.${i & 255}`)).toBeNull();
    expect(caps.held()).toBe(CONNECTIONS_MAX);
    expect(caps.acquire("10.9.9.9")).toBe("total");
    expect(caps.acquire("10.9.9.9", true)).toBeNull();
    caps.release("10.9.9.9", true);
    caps.release("10.0.0.0");
    expect(caps.acquire("10.9.9.9")).toBeNull();
    expect(caps.held("10.0.0.0")).toBe(0);
  });
});

describe("body deadline", () => {
  test(`a body complete ${BODY_DEADLINE_MS} ms after its headers is read; one ms later it is 408`, async () => {
    const timer = new HandTimer();
    const onTime = deferred<string>();
    const inTime = withinBodyDeadline(onTime.promise, { bodyDeadlineAt: BODY_DEADLINE_MS, timer });
    timer.advance(BODY_DEADLINE_MS);
    onTime.resolve("body");
    expect(await inTime).toBe("body");


    const clock = new HandTimer();
    const late = deferred<string>();
    const tooLate = withinBodyDeadline(late.promise, { bodyDeadlineAt: BODY_DEADLINE_MS, timer: clock });
    clock.advance(BODY_DEADLINE_MS + 1);
    late.resolve("body");
    await expect(tooLate).rejects.toMatchObject({ code: "LIMIT_EXCEEDED", status: 408 });
  });

  test("a deadline already passed when the body is first read is 408 at once", async () => {
    const timer = new HandTimer();
    timer.advance(BODY_DEADLINE_MS + 1);
    await expect(withinBodyDeadline(Promise.resolve("body"), { bodyDeadlineAt: BODY_DEADLINE_MS, timer })).rejects.toMatchObject({
      status: 408,
      message: expect.stringContaining(`${BODY_DEADLINE_MS} ms`),
    });
  });

  test("through the guard: a body that stops arriving is answered 408 with the connection closed", async () => {
    const timer = new HandTimer();
    const server = new FakeServer();
    const fetch = guardedFetch(async (request) => {
      try {
        return new Response(await readLimited(request, 1000));
      } catch (error) {
        return new Response((error as Error).message, { status: (error as { status: number }).status });
      }
    }, timer);
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new Uint8Array([123])) });
    const answer = fetch(new Request("http://localhost/x", { method: "POST", body: stalled, headers: { "content-length": "10" } }), server);
    await Bun.sleep(0);
    timer.advance(BODY_DEADLINE_MS + 1);
    const response = await answer;
    expect(response.status).toBe(408);
    expect(response.headers.get("connection")).toBe("close");
  });
});

describe("guard", () => {
  test("an answer given before the body was read closes the connection; one after it keeps it, with the idle timer", async () => {
    const server = new FakeServer();
    const unread = guardedFetch(() => new Response("no"), new HandTimer());
    const post = () => new Request("http://localhost/x", { method: "POST", body: "{}", headers: { "content-length": "2" } });
    expect((await unread(post(), server)).headers.get("connection")).toBe("close");
    const read = guardedFetch(async (request) => new Response(await readLimited(request, 10)), new HandTimer());
    const answered = await read(post(), server);
    expect(await answered.text()).toBe("{}");
    expect(answered.headers.get("connection")).toBeNull();
    expect(server.timeouts.slice(-2)).toEqual([GATEWAY_REQUEST_TIMEOUT_S, GATEWAY_IDLE_TIMEOUT_S]);
  });

  test("over the per-address cap: 503 at once, connection closed, naming the cap", async () => {
    const server = new FakeServer();
    const hold = deferred<Response>();
    const fetch = guardedFetch(() => hold.promise, new HandTimer());
    const held = Array.from({ length: CONNECTIONS_PER_ADDRESS_MAX }, () => fetch(new Request("http://localhost/x"), server));
    const over = await fetch(new Request("http://localhost/x"), server);
    expect(over.status).toBe(503);
    expect(over.headers.get("connection")).toBe("close");
    expect(((await over.json()) as { error: { message: string } }).error.message).toContain(`at most ${CONNECTIONS_PER_ADDRESS_MAX}`);
    hold.resolve(new Response("done"));
    await Promise.all(held);
    expect((await fetch(new Request("http://localhost/x"), server)).status).toBe(200);
  });

  test("a short host's request reaches the app with a routable URL and the socket's peer address", async () => {
    const server = new FakeServer(8080, new URL("http://127.0.0.1:8080/"), "10.1.2.3");
    let seen: Request | undefined;
    const fetch = guardedFetch((request) => ((seen = request), new Response("ok")), new HandTimer());
    const original = new Request("http://x/pair?a=1", { method: "POST" });
    await fetch(original, server);
    expect(seen!.url).toBe("http://x:8080/pair?a=1");
    expect(seen!.method).toBe("POST");
    expect(peerOf(seen!)).toBe("10.1.2.3");
    expect(factsOf(seen!)?.bodyDeadlineAt).toBeNull();
  });
});

describe("routable URL", () => {
  const server = { port: 8080, url: new URL("http://127.0.0.1:8080/") };
  test("a host of 4 characters or more is left alone", () => {
    expect(routableUrl("http://abcd/pair", server)).toBeNull();
    expect(routableUrl("http://localhost/pair", server)).toBeNull();
    expect(routableUrl("http://x:1234/pair", server)).toBeNull();
  });
  test("a shorter host gets the port; on a default port, or with a port already, the listening host", () => {
    expect(routableUrl("http://abc/v1/chat/completions", server)).toBe("http://abc:8080/v1/chat/completions");
    expect(routableUrl("http://x:1/pair", server)).toBe("http://127.0.0.1:8080/pair");
    expect(routableUrl("http://x/pair", { port: 80, url: new URL("http://0.0.0.0/") })).toBe("http://0.0.0.0/pair");
    expect(routableUrl("https://x/", { port: 443, url: new URL("https://[::1]/") })).toBe("https://[::1]/");
  });
});
