/** The enumerations of config.toml, without the schema: modules that only need the names do not build it. */
export const ProviderKinds = ["openai-compatible", "openai-responses", "anthropic", "offline"] as const;
export const ChannelKinds = [
  "telegram", "discord", "slack", "matrix", "webhook", "whatsapp", "signal", "mattermost", "teams", "irc", "email",
  "feishu", "googlechat", "line",
] as const;
export const DmPolicies = ["pairing", "allowlist", "open"] as const;
export const GroupPolicies = ["mention", "open", "disabled"] as const;
