import { userInfo } from "node:os";
import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { usageError } from "./args.ts";

/** Longest `--user` id (UTF-8 bytes): it travels in every inbound envelope and keys user-scoped middleware state. */
export const USER_ID_MAX_BYTES = 256;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `id` is not a usable user id, or null when it is: non-blank, at most USER_ID_MAX_BYTES, no control characters. */
export function userIdProblem(id: string): string | null {
  if (id.trim() === "") return "is empty";
  const bytes = new TextEncoder().encode(id).length;
  if (bytes > USER_ID_MAX_BYTES) return `is ${bytes} bytes, more than ${USER_ID_MAX_BYTES}`;
  if (CONTROL.test(id)) return "contains a control character";
  return null;
}

/**
 * The inbound envelope's `user_id` for `prx agent` and `prx chat`: `--user <id>` when given (a bad one is a usage
 * error), else the OS user's name. When the OS cannot name the user, a warning says so and user_id stays null.
 */
export function cliUserId(flag: string | undefined, where: string): string | null {
  if (flag !== undefined) {
    const problem = userIdProblem(flag);
    if (problem) {
      throw usageError(
        `${where}: --user ${problem}; give 1-${USER_ID_MAX_BYTES} bytes of text without control characters`,
      );
    }
    return flag;
  }
  let name: string;
  try {
    name = userInfo().username;
  } catch (error) {
    createLogger("cli").warn("the OS user name is unavailable; user_id stays empty (pass --user <id> to set it)", {
      error: errorMessage(error),
    });
    return null;
  }
  const problem = userIdProblem(name);
  if (!problem) return name;
  createLogger("cli").warn(`the OS user name ${problem}; user_id stays empty (pass --user <id> to set it)`);
  return null;
}
