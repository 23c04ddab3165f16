import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import type { GatewayElysia } from "../elysia.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";

const CredentialSchema = z
  .object({
    id: z.string().describe("token id (`prx gateway token list` shows it)"),
    name: z.string(),
    kind: z.enum(["token", "open", "control"]).describe('"open" when pairing is off and no token is needed; "control": a prx command of the workspace'),
  })
  .describe("the credential of this request");

const RevokedSchema = z.object({ id: z.string(), revoked: z.literal(true) }).describe("the token no longer works (within 10 ms)");

const tags = ["auth"];

/** The caller's own credential: who am I, and sign out (revoke the token this request was made with). */
export function authRoutes(app: GatewayElysia, gw: GatewayContext): void {
  app.get("/api/auth/token", ({ prx }) => jsonResponse({ id: prx.credential.id, name: prx.credential.name, kind: prx.credential.kind }), {
    detail: doc({ summary: "The token this request is authenticated with (never the token itself)", tags, responses: { 200: CredentialSchema } }),
  });
  app.delete(
    "/api/auth/token",
    async ({ prx }) => {
      const credential = prx.credential;
      if (credential.kind === "control") {
        throw new PrxError("CONFLICT", "the control token of a prx command is not revoked: it ends with this run of the gateway");
      }
      if (credential.kind !== "token") {
        throw new PrxError("CONFLICT", "this request carries no token to revoke: pairing is off (gateway.require_pairing = false)", {
          hint: "nothing to sign out of; turn pairing on in config.toml to require tokens",
        });
      }
      await gw.auth.tokens.revoke(credential.id);
      gw.logger.info("a client revoked its own token", { token: credential.id, client: prx.client });
      return jsonResponse({ id: credential.id, revoked: true });
    },
    {
      detail: doc({
        summary: "Sign out: revoke the token this request is authenticated with",
        description:
          "Other tokens keep working. When it was the last one, get a new token with `prx gateway token create` on the " +
          "gateway's machine (a restarted gateway with no token prints a new pairing code).",
        tags,
        responses: { 200: RevokedSchema },
        errors: [409],
      }),
    },
  );
}
