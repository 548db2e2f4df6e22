import assert from "node:assert/strict";
import { AppError, type ErrorCode } from "../../src/core/errors";

/** For `assert.rejects`: the error is an AppError with this code; `check` may look further. */
export function rejectsWith(code: ErrorCode, check?: (err: AppError) => void) {
  return (err: unknown) => {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    assert.equal(err.code, code);
    check?.(err);
    return true;
  };
}
