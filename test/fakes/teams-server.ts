/**
 * A fake Bot Framework on 127.0.0.1 (Microsoft Teams' side of a bot), answering as Microsoft documents it
 * (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication):
 * - OpenID metadata at /v1/.well-known/openidconfiguration naming `jwks_uri`, and the JWKS at /v1/.well-known/keys
 *   (RSA keys with kid and `endorsements`); the key can be rotated.
 * - The token endpoint POST /{tenant}/oauth2/v2.0/token: the client-credentials grant (form: grant_type, client_id,
 *   client_secret, scope=https://api.botframework.com/.default) answers `{token_type, expires_in, ext_expires_in,
 *   access_token}`; a wrong secret is 401 `{error: "invalid_client"}`.
 * - The connector (the serviceUrl): POST /v3/conversations/{conversationId}/activities/{activityId} (reply) and
 *   POST /v3/conversations/{conversationId}/activities (send, typing) with that bearer token, answering
 *   `{id}` (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference).
 *   An activity's `attachments[]` ({contentType, contentUrl, name, content}) are kept as sent: an inline image is a
 *   data URI contentUrl; a FileConsentCard is `application/vnd.microsoft.teams.card.file.consent` with content
 *   {description, sizeInBytes, acceptContext, declineContext}
 *   (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4).
 * - The user's answer to a consent card (same page): a `fileConsent/invoke` invoke activity whose value is
 *   {type: "fileUpload", action: "accept", context: acceptContext, uploadInfo: {contentUrl, name, uploadUrl, uniqueId,
 *   fileType, etag}}, or {type, action: "decline", context: declineContext}.
 * - The upload URL of an accepted file: PUT of the bytes with `Content-Range: bytes 0-{n-1}/{n}`, answered 201 with
 *   the driveItem; a range that does not match the body is 416
 *   (https://learn.microsoft.com/onedrive/developer/rest-api/api/driveitem_createuploadsession#upload-bytes-to-the-upload-session).
 * - The channel's side of inbound activities: an activity POSTed to the bot's messaging endpoint with
 *   `Authorization: Bearer <JWT>` signed RS256 by the JWKS key, iss https://api.botframework.com, aud = the app id,
 *   exp/nbf, and the serviceurl claim.
 */
import { waitFor } from "../helpers/wait.ts";

export interface TeamsAttachment {
  contentType: string;
  contentUrl?: string;
  name?: string;
  content?: Record<string, unknown>;
}

export interface TeamsActivitySent {
  /** The id the connector gave the activity. */
  id: string;
  conversation: string;
  replyTo: string | null;
  type: string;
  text?: string;
  attachments?: TeamsAttachment[];
}

export interface TeamsUpload {
  /** The name the upload URL was made for. */
  name: string;
  contentRange: string | null;
  contentType: string | null;
  bytes: Uint8Array;
}

export type TokenFlaw = "valid" | "missing" | "unknown-key" | "wrong-audience" | "wrong-issuer" | "expired" | "tampered";

export interface FakeTeams {
  url: string;
  appId: string;
  password: string;
  sent: TeamsActivitySent[];
  /** Files PUT to the upload URLs of accepted consent cards. */
  uploads: TeamsUpload[];
  keyFetches: number;
  tokenRequests: number;
  /** An activity from a user, as Teams posts it. */
  activity(a: { from: string; name?: string; text: string; conversation?: string; type?: "personal" | "groupChat" | "channel"; mention?: boolean; id?: string }): Record<string, unknown>;
  /**
   * The `fileConsent/invoke` activity Teams posts when the user of `conversation` answers the consent card `card`
   * (an attachment the bot sent), with an upload URL on this fake when accepted.
   */
  consent(card: TeamsAttachment, action: "accept" | "decline", conversation: string, cardActivityId: string): Record<string, unknown>;
  /** The Authorization header the Bot Framework would send, with `flaw` (undefined when "missing"). */
  authorization(flaw?: TokenFlaw): Promise<string | undefined>;
  /** POST an activity to the bot's endpoint with a token that has `flaw`. */
  deliver(endpoint: string, activity: Record<string, unknown>, flaw?: TokenFlaw): Promise<Response>;
  /** A new signing key; tokens are signed with it from now on. */
  rotate(): Promise<void>;
  waitForSent(n: number, timeoutMs?: number): Promise<TeamsActivitySent[]>;
  stop(): Promise<void>;
}

interface SigningKey {
  kid: string;
  pair: CryptoKeyPair;
  jwk: { n?: string; e?: string };
}

async function newKey(n: number): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  return { kid: `key-${n}`, pair, jwk: await crypto.subtle.exportKey("jwk", pair.publicKey) };
}

const b64 = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

export async function startFakeTeams(): Promise<FakeTeams> {
  const appId = "00000000-0000-4000-8000-00000000b07a";
  const password = "app-password";
  const accessToken = "bf-access-token";
  const botId = `28:${appId}`;
  let keys = [await newKey(1)];
  const stray = await newKey(99);
  let seq = 0;

  async function jwt(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
    const head = b64({ alg: "RS256", kid: key.kid, typ: "JWT", x5t: key.kid });
    const body = b64(claims);
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key.pair.privateKey, new TextEncoder().encode(`${head}.${body}`));
    return `${head}.${body}.${Buffer.from(signature).toString("base64url")}`;
  }

  const fake: FakeTeams = {
    url: "",
    appId,
    password,
    sent: [],
    uploads: [],
    keyFetches: 0,
    tokenRequests: 0,
    activity(a) {
      const type = a.type ?? "personal";
      const conversation = a.conversation ?? `a:1${a.from.replace(/\W/g, "")}`;
      return {
        type: "message",
        id: a.id ?? `1${String(++seq).padStart(12, "0")}`,
        timestamp: new Date().toISOString(),
        serviceUrl: fake.url,
        channelId: "msteams",
        from: { id: a.from, name: a.name ?? "User", aadObjectId: `aad-${a.from}` },
        conversation: { id: conversation, conversationType: type, isGroup: type !== "personal", tenantId: "tenant" },
        recipient: { id: botId, name: "prx" },
        textFormat: "plain",
        text: a.mention ? `<at>prx</at> ${a.text}` : a.text,
        entities: a.mention ? [{ type: "mention", mentioned: { id: botId, name: "prx" }, text: "<at>prx</at>" }] : [],
        channelData: { tenant: { id: "tenant" } },
      };
    },
    consent(card, action, conversation, cardActivityId) {
      const content = card.content ?? {};
      const name = card.name ?? "file";
      const n = ++seq;
      const value =
        action === "accept"
          ? {
              type: "fileUpload",
              action,
              context: content.acceptContext,
              uploadInfo: {
                contentUrl: `${fake.url}/personal/user/Documents/Applications/${encodeURIComponent(name)}`,
                name,
                uploadUrl: `${fake.url}/upload/${n}/${encodeURIComponent(name)}`,
                uniqueId: `1150D938-8870-4044-9F2C-${String(n).padStart(12, "0")}`,
                fileType: name.split(".").pop() ?? "",
                etag: String(n),
              },
            }
          : { type: "fileUpload", action, context: content.declineContext };
      return {
        type: "invoke",
        name: "fileConsent/invoke",
        id: `f:${n}`,
        timestamp: new Date().toISOString(),
        serviceUrl: fake.url,
        channelId: "msteams",
        from: { id: "29:consenting-user", name: "User", aadObjectId: "aad-consenting-user" },
        conversation: { id: conversation, conversationType: "personal", tenantId: "tenant" },
        recipient: { id: botId, name: "prx" },
        replyToId: cardActivityId,
        value,
        channelData: { tenant: { id: "tenant" } },
      };
    },
    async authorization(flaw = "valid") {
      if (flaw === "missing") return undefined;
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = { iss: "https://api.botframework.com", aud: appId, exp: now + 3600, nbf: now - 10, serviceurl: fake.url };
      if (flaw === "wrong-audience") claims.aud = "someone-else";
      if (flaw === "wrong-issuer") claims.iss = "https://sts.windows.net/evil/";
      if (flaw === "expired") claims.exp = now - 3600;
      let token = await jwt(flaw === "unknown-key" ? stray : keys.at(-1)!, claims);
      if (flaw === "tampered") token = token.replace(/\.[^.]+\./, `.${b64({ ...claims, aud: appId, serviceurl: "https://evil.example" })}.`);
      return `Bearer ${token}`;
    },
    async deliver(endpoint, activity, flaw = "valid") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      const authorization = await fake.authorization(flaw);
      if (authorization) headers.authorization = authorization;
      return fetch(endpoint, { method: "POST", headers, body: JSON.stringify(activity) });
    },
    async rotate() {
      keys = [...keys, await newKey(keys.length + 1)].slice(-2);
    },
    async waitForSent(n, timeoutMs) {
      const messages = () => fake.sent.filter((s) => s.type === "message");
      await waitFor(() => messages().length >= n, () => `${n} Teams messages, got ${JSON.stringify(fake.sent)}`, timeoutMs);
      return messages().slice(0, n);
    },
    stop: () => server.stop(true),
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/v1/.well-known/openidconfiguration") {
        return Response.json({
          issuer: "https://api.botframework.com",
          authorization_endpoint: "https://invalid.botframework.com",
          jwks_uri: `${fake.url}/v1/.well-known/keys`,
          id_token_signing_alg_values_supported: ["RS256"],
          token_endpoint_auth_methods_supported: ["private_key_jwt"],
        });
      }
      if (url.pathname === "/v1/.well-known/keys") {
        fake.keyFetches += 1;
        return Response.json({ keys: keys.map((k) => ({ kty: "RSA", use: "sig", kid: k.kid, x5t: k.kid, n: k.jwk.n, e: k.jwk.e, x5c: [], endorsements: ["msteams"] })) });
      }
      if (/^\/[^/]+\/oauth2\/v2\.0\/token$/.test(url.pathname) && request.method === "POST") {
        fake.tokenRequests += 1;
        const form = new URLSearchParams(await request.text());
        if (form.get("grant_type") !== "client_credentials" || form.get("scope") !== "https://api.botframework.com/.default") {
          return Response.json({ error: "invalid_request", error_description: "AADSTS900144: grant_type or scope missing" }, { status: 400 });
        }
        if (form.get("client_id") !== appId || form.get("client_secret") !== password) {
          return Response.json({ error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided." }, { status: 401 });
        }
        return Response.json({ token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: accessToken });
      }
      const activities = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(url.pathname);
      if (activities && request.method === "POST") {
        if (request.headers.get("authorization") !== `Bearer ${accessToken}`) return Response.json({ message: "Authorization has been denied for this request." }, { status: 401 });
        const body = (await request.json()) as { type: string; text?: string; attachments?: TeamsAttachment[] };
        const id = `reply-${++seq}`;
        fake.sent.push({
          id,
          conversation: decodeURIComponent(activities[1]!),
          replyTo: activities[2] ? decodeURIComponent(activities[2]) : null,
          type: body.type,
          ...(body.text === undefined ? {} : { text: body.text }),
          ...(body.attachments === undefined ? {} : { attachments: body.attachments }),
        });
        return Response.json({ id });
      }
      const upload = /^\/upload\/(\d+)\/([^/]+)$/.exec(url.pathname);
      if (upload && request.method === "PUT") {
        const bytes = new Uint8Array(await request.arrayBuffer());
        const range = request.headers.get("content-range");
        if (range !== `bytes 0-${bytes.byteLength - 1}/${bytes.byteLength}`) {
          return Response.json({ error: { code: "invalidRange", message: "The Content-Range header does not match the bytes sent." } }, { status: 416 });
        }
        const name = decodeURIComponent(upload[2]!);
        fake.uploads.push({ name, contentRange: range, contentType: request.headers.get("content-type"), bytes });
        return Response.json({ id: `item-${upload[1]}`, name, size: bytes.byteLength, file: {} }, { status: 201 });
      }
      return new Response("not found", { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}
