import { closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";

/**
 * The payload file handed to a hook (PRX_HOOK_PAYLOAD_FILE): created exclusively with mode 0600 and removed when
 * the owner's `using` scope ends, whichever way it ends.
 */
export class PayloadFile implements Disposable {
  private constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  static create(dir: string, json: string, logger: Logger): PayloadFile {
    const path = join(dir, `prx-hook-${crypto.randomUUID()}.json`);
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (cause) {
      throw new PrxError("INTERNAL", `cannot create hook payload file ${path}: ${(cause as Error).message}`, {
        cause,
        hint: "check that the temporary directory exists and is writable",
      });
    }
    const file = new PayloadFile(path, logger);
    try {
      writeSync(fd, json);
    } catch (cause) {
      file[Symbol.dispose]();
      throw new PrxError("INTERNAL", `cannot write hook payload file ${path}: ${(cause as Error).message}`, { cause });
    } finally {
      closeSync(fd);
    }
    return file;
  }

  [Symbol.dispose](): void {
    try {
      unlinkSync(this.path);
    } catch (error) {
      // The hook may have removed it itself; anything else is worth a warning.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.logger.warn("cannot remove hook payload file", { path: this.path, error: (error as Error).message });
      }
    }
  }
}
