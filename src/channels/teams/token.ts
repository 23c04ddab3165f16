import { TEAMS_TOKEN_RENEW_BEFORE_MS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { BOT_FRAMEWORK_SCOPE, TokenSchema } from "./wire.ts";

/**
 * The bearer token of replies: the OAuth 2.0 client-credentials grant of the bot's app id and password
 * (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication#bot-to-connector),
 * kept until TEAMS_TOKEN_RENEW_BEFORE_MS before it expires.
 */
export class BotTokens {
  private current: { token: string; until: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    private readonly o: { url: string; appId: string; password: string; timeoutMs: number; signal: AbortSignal; now?: () => number },
  ) {}

  get(): Promise<string> {
    const now = (this.o.now ?? Date.now)();
    if (this.current && now < this.current.until) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch(now).finally(() => (this.pending = null));
    return this.pending;
  }

  private async fetch(now: number): Promise<string> {
    const body = new URLSearchParams({ grant_type: "client_credentials", client_id: this.o.appId, client_secret: this.o.password, scope: BOT_FRAMEWORK_SCOPE });
    const init = { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: body.toString() };
    const answer = await platformRequest("teams", "token", this.o.url, init, { timeoutMs: this.o.timeoutMs, signal: this.o.signal });
    if (!answer.ok) throw new PlatformError("teams", `token: HTTP ${answer.status} (check app_id and the password in secret_env)`, answer.status, retryableStatus(answer.status));
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      throw new PlatformError("teams", "token: answer is not JSON", answer.status, true);
    }
    const parsed = TokenSchema.safeParse(json);
    if (!parsed.success) throw new PlatformError("teams", "token: unexpected answer", answer.status, false);
    this.current = { token: parsed.data.access_token, until: now + parsed.data.expires_in * 1000 - TEAMS_TOKEN_RENEW_BEFORE_MS };
    return this.current.token;
  }
}
