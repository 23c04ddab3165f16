import { FEISHU_TOKEN_RENEW_BEFORE_MS } from "../limits.ts";
import type { PlatformRequestBounds } from "../platform-request.ts";
import { feishuJson } from "./api.ts";
import { TOKEN_PATH, TokenAnswerSchema } from "./wire.ts";

/**
 * The tenant_access_token of a self-built app (https://open.feishu.cn/document/ukTMukTMukTM/ukDNz4SO0MjL5QzM/auth-v3/auth/tenant_access_token_internal):
 * app_id and app_secret give a token valid `expire` seconds (at most two hours; asked again with under 30 minutes
 * left, the platform issues a new one). Kept until FEISHU_TOKEN_RENEW_BEFORE_MS before it expires; one fetch at a time.
 */
export class TenantTokens {
  private current: { token: string; until: number } | null = null;
  private pending: Promise<string> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: { base: string; appId: string; appSecret: string; bounds: () => PlatformRequestBounds; now?: () => number }) {
    this.now = o.now ?? Date.now;
  }

  get(): Promise<string> {
    if (this.current && this.now() < this.current.until) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch().finally(() => (this.pending = null));
    return this.pending;
  }

  /** The platform said the token is no longer valid: the next get() fetches another. */
  forget(token: string): void {
    if (this.current?.token === token) this.current = null;
  }

  private async fetch(): Promise<string> {
    const asked = this.now();
    const answer = await feishuJson({
      what: "tenant access token (check app_id and the app secret in secret_env)",
      url: `${this.o.base}${TOKEN_PATH}`,
      body: { app_id: this.o.appId, app_secret: this.o.appSecret },
      schema: TokenAnswerSchema,
      bounds: this.o.bounds(),
    });
    this.current = { token: answer.tenant_access_token, until: asked + answer.expire * 1000 - FEISHU_TOKEN_RENEW_BEFORE_MS };
    return this.current.token;
  }
}
