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
    // node:os loads here, not with the CLI: only a turn whose middleware reads user_id needs the name (cliUser)
    name = (require("node:os") as typeof import("node:os")).userInfo().username;
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

/**
 * cliUserId, with the OS user's name looked up on first use: `--user` is checked at once (a bad one is a usage error
 * at start), the OS user only when something reads the id (a turn runs no inbound middleware without plugins).
 */
export function cliUser(flag: string | undefined, where: string): () => string | null {
  if (flag !== undefined) {
    const id = cliUserId(flag, where);
    return () => id;
  }
  let id: string | null | undefined;
  return () => (id === undefined ? (id = cliUserId(undefined, where)) : id);
}
