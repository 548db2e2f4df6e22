import pino from "pino";

export type Logger = pino.Logger;

/**
 * Field names whose values never reach a log line, wherever they appear in a logged object.
 * Login codes are one-time credentials, so they are redacted too.
 */
const REDACTED_FIELDS = [
  "session_key",
  "sessionKey",
  "secret",
  "appSecret",
  "password",
  "passwordHash",
  // Operators' TOTP seeds and the key material that encrypts them.
  "totpSecret",
  "consoleSeedKeys",
  "currentPassword",
  "newPassword",
  "token",
  "accessToken",
  "access_token",
  "refreshToken",
  "refresh_token",
  "authorization",
  "Authorization",
  "x-internal-key",
  "code",
  "jsCode",
  "js_code",
  "anonymous_code",
  "anonymousCode",
  // Player data: encrypted payloads, signatures and phone numbers are personal or key material.
  "encryptedData",
  "rawData",
  "signature",
  "phoneNumber",
  "purePhoneNumber",
  // Payment keys and signatures: never logged by the payment code, and redacted should one slip into a log object.
  "appKey",
  "sandboxAppKey",
  "pushToken",
  "encodingAesKey",
  "pay_sig",
  "paySig",
  "msg_signature",
];

const redactPaths = REDACTED_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]);

export function createLogger(options: { level: string; destination?: pino.DestinationStream; name?: string }): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: { paths: redactPaths, censor: "[redacted]" },
      serializers: { err: pino.stdSerializers.err },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
