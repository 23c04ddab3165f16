import { request } from "node:http";

export interface PairAnswer {
  status: number;
  body: { token?: string; error?: { message: string; hint?: string } };
}

/** POST /pair at the gateway `url` with `code`, from the local loopback address `from` (127.x.y.z). */
export function pairFrom(url: string, code: string, from: string): Promise<PairAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: "POST", path: "/pair", localAddress: from, agent: false, headers: { "x-pairing-code": code } },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** A code of the pairing code's length and alphabet that is not `code`. */
export function wrongPairingCode(code: string): string {
  return code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH";
}
