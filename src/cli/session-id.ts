import { SESSION_ID_MAX_BYTES, SESSION_ID_PATTERN } from "../agent/sessions.ts";
import { usageError } from "./args.ts";

/** `--session ID` for `prx agent` and `prx chat`: checked at start by the API's rule, so no message fails for it later. */
export function cliSessionId(flag: string | undefined, where: string): string | undefined {
  if (flag === undefined || SESSION_ID_PATTERN.test(flag)) return flag;
  return badSessionId(flag, where);
}

function badSessionId(flag: string, where: string): never {
  throw usageError(
    `${where}: invalid --session ${JSON.stringify(flag.slice(0, 40))}: use 1-${SESSION_ID_MAX_BYTES} characters ` +
      "from A-Z a-z 0-9 . _ : @ - (the same rule as the gateway's session ids)",
  );
}
