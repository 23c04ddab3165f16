/** Every bound of the channel subsystem, each tested at the limit and one past it. */

import type { BackoffOptions, RestartLimits } from "../core/supervise/index.ts";

/** Telegram sendMessage text limit (https://core.telegram.org/bots/api#sendmessage: 1-4096 characters). */
export const TELEGRAM_MAX_MESSAGE_CHARS = 4096;
/** A photo sendPhoto takes (https://core.telegram.org/bots/api#sendphoto: 10 MB); a larger image goes as a document. */
export const TELEGRAM_MAX_PHOTO_BYTES = 10 * 1024 * 1024;
/** WhatsApp sends JPEG and PNG images of at most 5 MB as images; other files go as documents. */
export const WHATSAPP_MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const WHATSAPP_IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png"];
/** Discord message content limit (https://discord.com/developers/docs/resources/message#create-message). */
export const DISCORD_MAX_MESSAGE_CHARS = 2000;
/** Slack: chat.postMessage truncates past 40,000; Slack recommends at most 4,000 characters per message. */
export const SLACK_MAX_MESSAGE_CHARS = 4000;
/** Matrix has a 65,536-byte event limit; replies are split well below it. */
export const MATRIX_MAX_MESSAGE_CHARS = 16_000;
/** Webhook replies are split into parts of at most this many characters. */
export const WEBHOOK_MAX_MESSAGE_CHARS = 16_000;

/** Attachments one inbound message may carry (an album's photos arrive as one message each on most platforms). */
export const CHANNEL_MAX_ATTACHMENTS = 10;
/**
 * A file a reply attaches (a workspace file the answer links): past this many bytes it is named in the text instead.
 * Within every platform's upload limit for bots (Discord 10 MiB, Telegram photos 10 MB, Slack 1 GB, WhatsApp
 * documents 100 MB; WhatsApp images over 5 MB go as documents).
 */
export const CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Time to fetch every attachment of one message from the platform. */
export const ATTACHMENT_FETCH_TIMEOUT_MS = 60_000;
/**
 * Raw HTTP body a channel accepts through the gateway (webhook, Slack Events, Telegram webhook, WhatsApp, Teams): room
 * for a message of USER_MESSAGE_MAX_CHARS (refused by the runner, with a notice, past that) and its envelope.
 */
export const CHANNEL_MAX_HTTP_BODY_BYTES = 1024 * 1024;
/** Signed requests older or newer than this are refused (replay window). */
export const SIGNATURE_WINDOW_S = 300;

/** Messages stored but not yet answered, over all chats of a process; past it the platform is not read (backpressure). */
export const CHANNEL_MAX_PENDING = 2000;

/**
 * The newest session messages a restart reads for the answer of a message whose turn had started (the first answer
 * after its user message, found by the seq its inbox row recorded, and before the next user message). The turn's
 * messages are the newest ones; only when more than this came after the user's message (a turn of 100 rounds of 5
 * calls, or reminders and other turns written to the chat since) is the message not among them, and its turn is then
 * run on from its message.
 */
export const STARTED_TURN_TAIL_MESSAGES = 500;
/** Typing is re-sent this often while a turn runs (Telegram's action lasts 5 s, Discord's 10 s). */
export const TYPING_INTERVAL_MS = 4000;
/** Processed message ids are kept this long (redeliveries come within minutes; a day is plenty). */
export const PROCESSED_TTL_MS = 24 * 60 * 60 * 1000;

/** Pairing codes: digits, lifetime, and most pending requests kept per channel (oldest dropped); kept by the store. */
export { CHANNEL_PAIRING_CODE_LENGTH, CHANNEL_PAIRING_TTL_MS, CHANNEL_PAIRING_MAX_PENDING } from "../storage/limits.ts";

/**
 * A platform API request (or a webhook callback POST) not answered within this is abandoned as a dropped connection,
 * and retried like one.
 */
export const PLATFORM_REQUEST_TIMEOUT_MS = 30_000;
/**
 * Largest answer read from a platform API (decoded bytes): a Telegram getUpdates of 100 updates, a Matrix /sync, a
 * Discord or Slack answer are far below it. The body is streamed and the connection closed at the first byte past it.
 */
export const PLATFORM_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** A long poll (Telegram getUpdates, Matrix /sync) unanswered this long past its own timeout is abandoned the same way. */
export const PLATFORM_LONG_POLL_SLACK_MS = 15_000;
/**
 * Starting a WebSocket platform (Discord, Slack Socket Mode) waits this long for the first connection; then the process
 * reports itself started anyway, keeps connecting, and its health says why it is not connected.
 */
export const PLATFORM_FIRST_CONNECT_WAIT_MS = 10_000;
/** How long a Matrix typing notice lasts on the homeserver: longer than TYPING_INTERVAL_MS, so it never lapses mid-turn. */
export const MATRIX_TYPING_TIMEOUT_MS = 10_000;

/** The platform time limits above, as an adapter reads them (tests pass shorter ones). */
export interface PlatformLimits {
  requestTimeoutMs: number;
  longPollSlackMs: number;
  firstConnectWaitMs: number;
}

export function platformLimits(given: Partial<PlatformLimits> = {}): PlatformLimits {
  return {
    requestTimeoutMs: given.requestTimeoutMs ?? PLATFORM_REQUEST_TIMEOUT_MS,
    longPollSlackMs: given.longPollSlackMs ?? PLATFORM_LONG_POLL_SLACK_MS,
    firstConnectWaitMs: given.firstConnectWaitMs ?? PLATFORM_FIRST_CONNECT_WAIT_MS,
  };
}

/** Platform backoff after errors (network, 5xx, 409): doubles from base up to max. */
export const PLATFORM_BACKOFF_BASE_MS = 250;
export const PLATFORM_BACKOFF_MAX_MS = 30_000;
/** The platform backoff as the reconnect loops and send retries use it: with jitter, so clients do not retry in step. */
export const PLATFORM_BACKOFF: Readonly<BackoffOptions> = { baseMs: PLATFORM_BACKOFF_BASE_MS, maxMs: PLATFORM_BACKOFF_MAX_MS, jitter: true };
/** Sends are tried this many times in all (rate limits, server errors, dropped connections), then the error is reported. */
export const PLATFORM_SEND_ATTEMPTS = 5;
/** Longest wait a platform's retry_after may impose before we retry anyway. */
export const PLATFORM_RETRY_AFTER_MAX_MS = 60_000;

/** Channel process restarts: exponential backoff, capped; more than the max in the window is a crash loop. */
export const CHANNEL_RESTART_BASE_MS = 200;
export const CHANNEL_RESTART_MAX_MS = 30_000;
export const CHANNEL_CRASH_LOOP_RESTARTS = 5;
export const CHANNEL_CRASH_LOOP_WINDOW_MS = 60_000;
/** A child that stays up this long is healthy again: its backoff starts over. */
export const CHANNEL_STABLE_AFTER_MS = 30_000;
/** A crash loop is reported (/health, /api/channels) and restarted still, at the capped delay. */
export const CHANNEL_RESTART_LIMITS: Readonly<RestartLimits> = {
  baseMs: CHANNEL_RESTART_BASE_MS,
  maxMs: CHANNEL_RESTART_MAX_MS,
  windowMs: CHANNEL_CRASH_LOOP_WINDOW_MS,
  maxExitsPerWindow: CHANNEL_CRASH_LOOP_RESTARTS,
  stableAfterMs: CHANNEL_STABLE_AFTER_MS,
  onCrashLoop: "keep-restarting",
};
/** How long the gateway waits for a forwarded HTTP request's answer from a channel process. */
export const CHANNEL_HTTP_TIMEOUT_MS = 120_000;
/**
 * How long a synchronous webhook caller waits for the answer before it gets 202 (the answer is kept and returned when
 * the same id is posted again). Shorter than CHANNEL_HTTP_TIMEOUT_MS, so the caller hears 202 from the channel, not
 * 504 from the gateway.
 */
export const WEBHOOK_SYNC_WAIT_MS = 110_000;
/** An answer no caller is waiting for is kept in memory this long (a caller posting its id later gets it from the inbox). */
export const WEBHOOK_REPLY_KEEP_MS = 60_000;
/**
 * Most answers kept for callers that have not asked yet (as many as messages may wait unanswered); past it the oldest
 * is dropped, and its caller posting the id again gets it from the inbox.
 */
export const WEBHOOK_REPLY_KEEP_MAX = 2000;
/** Forwarded requests waiting on one channel process at once. */
export const CHANNEL_MAX_INFLIGHT_HTTP = 256;
/** A channel's last error is kept (status row, /api/channels) cut to this many characters. */
export const CHANNEL_LAST_ERROR_MAX_CHARS = 1000;
/**
 * A channel process's stderr lines (its log) go to the gateway's log, stderr and logs/prx.log; a longer line is left
 * out with a note saying how long it was.
 */
export const CHANNEL_LOG_LINE_MAX_BYTES = 16 * 1024;
/** The child checks its parent this often and exits when it is gone. */
export const PARENT_WATCH_INTERVAL_MS = 500;
/**
 * A channel process writes its liveness row and tells the supervisor its counters at most this often while messages
 * keep changing them (the first change after a quiet interval at once, the rest together at its end); errors are told
 * at once. Written for every answered message, the status would cost a busy channel process an SQLite upsert and an
 * IPC write per message, and the gateway a wakeup and a parse; a busy channel's status is a second old at most.
 */
export const CHANNEL_REPORT_INTERVAL_MS = 1000;
/** A stopping channel process gets this long to finish its running turns; later messages wait for the next start. */
export const CHANNEL_STOP_GRACE_MS = 5000;
/** A channel process asked to stop that has not exited this long after is killed (SIGKILL): its grace plus a second. */
export const CHANNEL_KILL_AFTER_MS = CHANNEL_STOP_GRACE_MS + 1000;

/** WhatsApp text message body limit (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages#text-object: 4096 characters). */
export const WHATSAPP_MAX_MESSAGE_CHARS = 4096;
/**
 * WhatsApp's customer service window: a free-form reply may be sent within 24 hours of the user's last message; after
 * it only an approved template (https://developers.facebook.com/docs/whatsapp/pricing#customer-service-windows).
 */
export const WHATSAPP_SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Signal has no documented text limit; replies are split here, as long messages are sent as attachments past ~2,000. */
export const SIGNAL_MAX_MESSAGE_CHARS = 2000;
/** Mattermost's default MaxPostSize is 16,383 characters (https://docs.mattermost.com/configure/environment-configuration-settings.html). */
export const MATTERMOST_MAX_MESSAGE_CHARS = 16_383;
/** Teams accepts messages up to ~28 KB; replies are split well below it. */
export const TEAMS_MAX_MESSAGE_CHARS = 16_000;
/**
 * Bearer tokens (Teams, Google Chat) whose signature was checked, kept so that a token sent again is not checked
 * again while its key is current (bearer-jwt.ts VerifiedTokens); past this many, the oldest is let go.
 */
export const CHANNEL_VERIFIED_TOKENS_MAX = 16;
/** Bot Framework signing keys are cached this long (Microsoft asks for at least daily refresh). */
export const TEAMS_KEYS_TTL_MS = 24 * 60 * 60 * 1000;
/** A token signed by a key not in the cache refreshes the keys at most this often (a forger cannot make us hammer the JWKS). */
export const TEAMS_KEYS_MIN_REFRESH_MS = 5 * 60 * 1000;
/** Clock skew allowed on a token's exp and nbf (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication: 5 minutes). */
export const TEAMS_CLOCK_SKEW_S = 300;
/** A bearer token of the client-credentials grant is renewed this long before it expires. */
export const TEAMS_TOKEN_RENEW_BEFORE_MS = 5 * 60 * 1000;
/**
 * The largest image a reply sends inline, as a base64 data URI in the activity (https://learn.microsoft.com/microsoftteams/platform/bots/how-to/bots-filesv4#fetch-inline-images-from-message).
 * Microsoft's 100 KB message limit leaves base64 images out and names no cap of their own, and its SDK guide keeps
 * data URIs to small images: past this one an image goes as a file (consent card in a personal chat).
 */
export const TEAMS_MAX_INLINE_IMAGE_BYTES = 1024 * 1024;
/**
 * IRC: a line is at most 512 bytes with its CR LF (RFC 2812 2.3), and the server relays our PRIVMSG with our prefix
 * (":nick!user@host ", up to ~100 bytes) in front: a message's text is cut at this many UTF-8 bytes per line.
 */
export const IRC_MAX_TEXT_BYTES = 350;
/** Reply parts are split here; each part goes out as one PRIVMSG per line of at most IRC_MAX_TEXT_BYTES. */
export const IRC_MAX_MESSAGE_CHARS = 2000;
/**
 * Flood control: this many lines go out at once (irssi's default burst is 5), then one line per IRC_SEND_INTERVAL_MS.
 * Servers throttle or disconnect flooders: ngIRCd holds a client back for a second once it sends more than 3 commands
 * in one, so the burst stays at 3 and the sustained rate at 2 lines a second (PONGs fit beside it).
 */
export const IRC_SEND_BURST = 3;
/** After the burst, one line per this many milliseconds. */
export const IRC_SEND_INTERVAL_MS = 500;
/** A server line longer than this (bytes, without CR LF) drops the connection: the RFC says 512, IRCv3 tags add 8,191. */
export const IRC_MAX_LINE_BYTES = 8704;
/**
 * Chats an adapter remembers something of (WhatsApp: when the user last wrote; Teams: the conversation's serviceUrl);
 * past it the chat heard from longest ago is forgotten (WhatsApp then learns the window from the platform's answer,
 * Teams from the user's next message or api_base_url). Feishu keeps as many ids of messages it sent (a reply to one
 * addresses the bot).
 */
export const CHANNEL_MAX_REMEMBERED_CHATS = 10_000;
/** An email reply is one mail; text past this many characters goes in another mail of the same thread. */
export const EMAIL_MAX_MESSAGE_CHARS = 100_000;
/**
 * A mail larger than this (RFC822.SIZE, bytes) is not downloaded: its sender is answered from its headers with a note
 * that it was too large to read. Attachments of a mail below it are fetched again when its turn runs.
 */
export const EMAIL_MAX_MESSAGE_BYTES = 25 * 1024 * 1024;
/**
 * The folder is searched for unseen mail this often besides IMAP IDLE's notices (servers without IDLE, a notice lost
 * to a dropped connection, \Seen flags that could not be set).
 */
export const EMAIL_POLL_INTERVAL_MS = 60_000;
/** Unseen mails fetched in one search; the rest are fetched by the next one. */
export const EMAIL_MAX_FETCH_BATCH = 100;
/** IMAP IDLE starts this long after the last command (new mail is told at once while idling). */
export const EMAIL_IDLE_AFTER_MS = 50;

/**
 * Feishu / Lark: a text message's request body may be 150 KB (https://open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/im-v1/message/create).
 * The text travels JSON-encoded twice (content is a JSON string), so a character can take up to 7 bytes (a control
 * character escaped twice): parts of 16,000 characters stay under the limit whatever they hold.
 */
export const FEISHU_MAX_MESSAGE_CHARS = 16_000;
/** A tenant_access_token is renewed this long before it expires (under the 30 minutes within which Feishu issues a new one). */
export const FEISHU_TOKEN_RENEW_BEFORE_MS = 5 * 60 * 1000;

/**
 * Google Chat: a message, text and cards, is at most 32,000 bytes
 * (https://developers.google.com/workspace/chat/create-messages); a part of this many UTF-16 code units is at most
 * 30,000 bytes of UTF-8 (3 bytes a unit at worst), so every part fits.
 */
export const GOOGLE_CHAT_MAX_MESSAGE_CHARS = 10_000;
/** Google's signing certificates are kept as long as their Cache-Control max-age says, within these bounds. */
export const GOOGLE_CHAT_KEYS_MIN_TTL_MS = 5 * 60 * 1000;
export const GOOGLE_CHAT_KEYS_MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** A token signed by a key not in the cache refreshes the keys at most this often (a forger cannot make us hammer Google). */
export const GOOGLE_CHAT_KEYS_MIN_REFRESH_MS = 5 * 60 * 1000;
/** Clock skew allowed on a bearer token's exp, iat and nbf. */
export const GOOGLE_CHAT_CLOCK_SKEW_S = 300;
/** The service account's signed assertion asks for a token valid this long (Google's maximum is one hour). */
export const GOOGLE_CHAT_ASSERTION_LIFETIME_S = 3600;
/** An access token of the service account is renewed this long before it expires. */
export const GOOGLE_CHAT_TOKEN_RENEW_BEFORE_MS = 5 * 60 * 1000;

/** LINE text message limit (https://developers.line.biz/en/reference/messaging-api/#text-message: 5,000 characters). */
export const LINE_MAX_MESSAGE_CHARS = 5000;
/**
 * A reply token is used within this long of its event, else the reply is pushed at once: LINE documents that it
 * expires shortly after the webhook and can be used once (https://developers.line.biz/en/reference/messaging-api/#send-reply-message).
 */
export const LINE_REPLY_TOKEN_TTL_MS = 50_000;
/** The loading animation of a one-to-one chat is asked for this long (5-60 s, in steps of 5); typing repeats it. */
export const LINE_LOADING_SECONDS = 10;

/** An inbound message's ids (message, chat, thread, sender) and its sender's display name, in characters. */
export const INBOUND_ID_MAX_CHARS = 256;

/** The query string of a webhook request the gateway forwards to a channel process, in characters. */
export const FORWARDED_QUERY_MAX_CHARS = 8192;
