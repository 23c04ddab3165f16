/**
 * A fake Google Chat on 127.0.0.1 (Google's side of an HTTP endpoint app), answering as Google documents it:
 * - the signing certificates, each `{key id: PEM X.509 certificate}` with Cache-Control max-age
 *   (https://developers.google.com/workspace/chat/verify-requests-from-chat): chat@system.gserviceaccount.com's at
 *   /service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com (tokens for the project-number audience) and
 *   Google's OIDC ones at /oauth2/v1/certs (ID tokens for the endpoint-URL audience);
 * - the token endpoint POST /token, the JWT bearer grant of a service account
 *   (https://developers.google.com/identity/protocols/oauth2/service-account#httprest: form grant_type
 *   urn:ietf:params:oauth:grant-type:jwt-bearer and an RS256 assertion {iss, scope, aud = this endpoint, iat, exp}):
 *   `{access_token, expires_in, token_type}`, or 400 `{error: "invalid_grant", error_description}`;
 * - the Chat API with that token: POST /v1/spaces/{space}/messages (messageReplyOption, body {text, thread: {name}};
 *   https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages/create) answering the
 *   created Message, and GET /v1/media/{resourceName}?alt=media (media/download); errors as
 *   `{error: {code, message, status}}`;
 * - Chat's side of the endpoint: interaction events (MESSAGE, ADDED_TO_SPACE, REMOVED_FROM_SPACE; the Event
 *   reference) POSTed with `Authorization: Bearer <token>` for the configured audience.
 * Certificates are made with the openssl command (as Google's are X.509).
 */
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../helpers/wait.ts";

export const CHAT_ISSUER = "chat@system.gserviceaccount.com";

export interface ChatSent {
  space: string;
  thread: string | null;
  replyOption: string | null;
  text: string;
}

export type ChatTokenFlaw = "valid" | "missing" | "unknown-key" | "wrong-audience" | "wrong-issuer" | "expired" | "tampered" | "not-chat";

export interface FakeGoogleChat {
  url: string;
  projectNumber: string;
  /** The service account key JSON, as the app's owner downloads it (token_uri is this fake's). */
  serviceAccountKey: string;
  sent: ChatSent[];
  certFetches: number;
  tokenRequests: number;
  media: Map<string, Uint8Array>;
  /** A MESSAGE event from a user: a DM unless `space` is given (then `mention` @-mentions the app). */
  message(a: { from: string; name?: string; text: string; space?: string; thread?: string; mention?: boolean; image?: Uint8Array; id?: string }): Record<string, unknown> & { message: { name: string } };
  /** ADDED_TO_SPACE or REMOVED_FROM_SPACE of a space. */
  membership(type: "ADDED_TO_SPACE" | "REMOVED_FROM_SPACE", space: string): Record<string, unknown>;
  /** The Authorization header Chat sends: for `audience` (the project number, or the endpoint URL), with `flaw`; `claims` override. */
  authorization(audience: { projectNumber: string } | { endpointUrl: string }, flaw?: ChatTokenFlaw, claims?: Record<string, unknown>): string | undefined;
  /** The Cache-Control max-age (seconds) the certificate answers carry. */
  certsMaxAgeS: number;
  deliver(endpoint: string, event: Record<string, unknown>, flaw?: ChatTokenFlaw, audience?: { projectNumber: string } | { endpointUrl: string }): Promise<Response>;
  /** A new signing certificate for both sets; tokens are signed with it from now on. */
  rotate(): void;
  waitForSent(n: number, timeoutMs?: number): Promise<ChatSent[]>;
  stop(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privatePem: string;
  certPem: string;
}

let made = 0;
/** Keys made so far, by the order they were asked for: fakes of one test process share them (openssl takes its time). */
const madeKeys: SigningKey[] = [];
const keyDir = mkdtempSync(join(tmpdir(), "prx-fake-gchat-"));
process.on("exit", () => rmSync(keyDir, { recursive: true, force: true }));

/** The fake's n-th signing key (each fake asks from 0: the first three, then one more per rotation). */
function certified(n: number): SigningKey {
  while (madeKeys.length <= n) madeKeys.push(newCertified(keyDir));
  return madeKeys[n]!;
}

/** An RSA key and its self-signed certificate, by the openssl command. */
function newCertified(dir: string): SigningKey {
  const n = ++made;
  const key = join(dir, `k${n}.pem`);
  const cert = join(dir, `c${n}.pem`);
  const run = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-subj", "/CN=chat", "-days", "2"], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl req failed: ${run.stderr.toString()}`);
  return { kid: `kid-${n}-${Math.random().toString(16).slice(2, 10)}`, privatePem: readFileSync(key, "utf8"), certPem: readFileSync(cert, "utf8") };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function jwt(key: SigningKey, claims: Record<string, unknown>): string {
  const head = b64({ alg: "RS256", kid: key.kid, typ: "JWT" });
  const body = b64(claims);
  return `${head}.${body}.${sign("sha256", Buffer.from(`${head}.${body}`), key.privatePem).toString("base64url")}`;
}

export function startFakeGoogleChat(): FakeGoogleChat {
  let nextKey = 0;
  const projectNumber = "428571428571";
  const accessToken = "ya29.fake-chat-bot-token";
  const clientEmail = "prx-bot@prx-test.iam.gserviceaccount.com";
  const account = generateKeyPairSync("rsa", { modulusLength: 2048 });
  let chatKeys = [certified(nextKey++)];
  let oidcKeys = [certified(nextKey++)];
  const stray = certified(nextKey++);
  let seq = 0;
  const error = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });

  const fake: FakeGoogleChat = {
    url: "",
    projectNumber,
    serviceAccountKey: "",
    sent: [],
    certFetches: 0,
    certsMaxAgeS: 21_600,
    tokenRequests: 0,
    media: new Map(),
    message(a) {
      const n = ++seq;
      const dm = a.space === undefined;
      const space = { name: a.space ?? `spaces/dm-${a.from.replace(/\W/g, "")}`, type: dm ? "DM" : "ROOM", spaceType: dm ? "DIRECT_MESSAGE" : "SPACE", singleUserBotDm: dm, displayName: dm ? "" : "Team" };
      const sender = { name: a.from, displayName: a.name ?? "User", type: "HUMAN", domainId: "d1" };
      const id = a.id ?? `m${n}.m${n}`;
      const text = a.mention ? `@prx ${a.text}` : a.text;
      const message: Record<string, unknown> & { name: string } = {
        name: `${space.name}/messages/${id}`,
        sender,
        createTime: new Date().toISOString(),
        text,
        argumentText: a.mention ? ` ${a.text}` : a.text,
        thread: { name: `${space.name}/threads/${a.thread ?? `t${n}`}` },
        space,
      };
      if (a.mention) message.annotations = [{ type: "USER_MENTION", startIndex: 0, length: 4, userMention: { user: { name: "users/app-prx", displayName: "prx", type: "BOT" }, type: "MENTION" } }];
      if (a.image) {
        const resourceName = `res-${n}`;
        fake.media.set(resourceName, a.image);
        message.attachment = [{ name: `${message.name}/attachments/a${n}`, contentName: "photo.png", contentType: "image/png", attachmentDataRef: { resourceName }, source: "UPLOADED_CONTENT" }];
      }
      return { type: "MESSAGE", eventTime: new Date().toISOString(), message, user: sender, space, common: {} } as Record<string, unknown> & { message: { name: string } };
    },
    membership(type, space) {
      return { type, eventTime: new Date().toISOString(), user: { name: "users/1", displayName: "Admin", type: "HUMAN" }, space: { name: space, type: "ROOM", spaceType: "SPACE" } };
    },
    authorization(audience, flaw = "valid", overrides = {}) {
      if (flaw === "missing") return undefined;
      const now = Math.floor(Date.now() / 1000);
      const project = "projectNumber" in audience;
      const claims: Record<string, unknown> = {
        ...(project
          ? { iss: CHAT_ISSUER, aud: audience.projectNumber, iat: now - 5, exp: now + 3600 }
          : { iss: "https://accounts.google.com", aud: audience.endpointUrl, azp: "113", email: CHAT_ISSUER, email_verified: true, sub: "113", iat: now - 5, exp: now + 3600 }),
        ...overrides,
      };
      if (flaw === "wrong-audience") claims.aud = "999";
      if (flaw === "wrong-issuer") claims.iss = "someone@evil.iam.gserviceaccount.com";
      if (flaw === "expired") claims.exp = now - 3600;
      if (flaw === "not-chat") claims.email = "someone@evil.iam.gserviceaccount.com";
      let token = jwt(flaw === "unknown-key" ? stray : (project ? chatKeys : oidcKeys).at(-1)!, claims);
      if (flaw === "tampered") token = token.replace(/\.[^.]+\./, `.${b64({ ...claims, exp: now + 99999 })}.`);
      return `Bearer ${token}`;
    },
    deliver(endpoint, event, flaw = "valid", audience = { projectNumber }) {
      const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Google-Dynamite" };
      const authorization = fake.authorization(audience, flaw);
      if (authorization) headers.authorization = authorization;
      return fetch(endpoint, { method: "POST", headers, body: JSON.stringify(event) });
    },
    rotate() {
      chatKeys = [...chatKeys, certified(nextKey++)].slice(-2);
      oidcKeys = [...oidcKeys, certified(nextKey++)].slice(-2);
    },
    async waitForSent(n, timeoutMs) {
      await waitFor(() => fake.sent.length >= n, () => `${n} Chat messages, got ${JSON.stringify(fake.sent)}`, timeoutMs);
      return fake.sent.slice(0, n);
    },
    async stop() {
      await server.stop(true);
    },
  };

  const certs = (keys: SigningKey[]) => {
    fake.certFetches += 1;
    return Response.json(Object.fromEntries(keys.map((k) => [k.kid, k.certPem])), { headers: { "cache-control": `public, max-age=${fake.certsMaxAgeS}, must-revalidate, no-transform` } });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === `/service_accounts/v1/metadata/x509/${CHAT_ISSUER}`) return certs(chatKeys);
      if (url.pathname === "/oauth2/v1/certs") return certs(oidcKeys);
      if (url.pathname === "/token" && request.method === "POST") {
        fake.tokenRequests += 1;
        const form = new URLSearchParams(await request.text());
        if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return Response.json({ error: "unsupported_grant_type", error_description: "Invalid grant_type: " + form.get("grant_type") }, { status: 400 });
        const [h, p, s] = (form.get("assertion") ?? "").split(".");
        const claims = p ? (JSON.parse(Buffer.from(p, "base64url").toString()) as Record<string, unknown>) : {};
        if (!h || !p || !s || !verify("sha256", Buffer.from(`${h}.${p}`), account.publicKey, Buffer.from(s, "base64url"))) {
          return Response.json({ error: "invalid_grant", error_description: "Invalid JWT Signature." }, { status: 400 });
        }
        if (claims.iss !== clientEmail || claims.aud !== `${fake.url}/token` || claims.scope !== "https://www.googleapis.com/auth/chat.bot") {
          return Response.json({ error: "invalid_grant", error_description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe." }, { status: 400 });
        }
        return Response.json({ access_token: accessToken, expires_in: 3599, token_type: "Bearer" });
      }
      if (request.headers.get("authorization") !== `Bearer ${accessToken}`) return error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
      const create = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(url.pathname);
      if (create && request.method === "POST") {
        const body = (await request.json()) as { text?: string; thread?: { name?: string } };
        if (!body.text) return error(400, "INVALID_ARGUMENT", "Message cannot be empty.");
        if (Buffer.byteLength(body.text) > 32_000) return error(400, "INVALID_ARGUMENT", "Message too long.");
        const thread = body.thread?.name ?? null;
        fake.sent.push({ space: create[1]!, thread, replyOption: url.searchParams.get("messageReplyOption"), text: body.text });
        const name = `${create[1]}/messages/r${++seq}`;
        return Response.json({ name, sender: { name: "users/app-prx", type: "BOT" }, text: body.text, createTime: new Date().toISOString(), thread: { name: thread ?? `${create[1]}/threads/n${seq}` }, space: { name: create[1] } });
      }
      const media = /^\/v1\/media\/(.+)$/.exec(url.pathname);
      if (media && request.method === "GET" && url.searchParams.get("alt") === "media") {
        const bytes = fake.media.get(decodeURIComponent(media[1]!));
        return bytes ? new Response(bytes, { headers: { "content-type": "image/png" } }) : error(404, "NOT_FOUND", "Attachment not found.");
      }
      return error(404, "NOT_FOUND", "Requested entity was not found.");
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.serviceAccountKey = JSON.stringify({
    type: "service_account",
    project_id: "prx-test",
    private_key_id: "0123456789abcdef",
    private_key: account.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: clientEmail,
    client_id: "1234567890",
    token_uri: `${fake.url}/token`,
  });
  return fake;
}
