/** What one operation of the API description says, and how it becomes an OpenAPI operation object. */
import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../../core/errors";
import type { PlatformDefinition } from "../../platforms/platform";
import * as s from "../schemas";

export type Json = Record<string, unknown>;
export type Method = "get" | "post" | "patch" | "put" | "delete";

export interface OperationSpec {
  method: Method;
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  security?: "bearer" | "internalKey" | "console" | "consoleChange";
  /** `also`: parameters every platform's route shares (the app id), beside the platform's own. */
  query?: { schema?: z.ZodType; also?: z.ZodType; examples: Record<string, string> };
  body?: { schema: z.ZodType; examples: Record<string, unknown> };
  /** Parameters in the path template (`{orderId}`). */
  pathParams?: { schema: z.ZodType; examples: Record<string, string> };
  /** `replay`: the same component under 200 too, for a create whose repeat answers the existing record. */
  success: { status: 200 | 201 | 202; component: string; description: string; replay?: string };
  errors: ErrorCode[];
  /** Optional `data` fields this route's failures may carry beside `code`. */
  errorFields?: z.ZodRawShape;
  /** Failures answered in the platform's own shape (a push route's), by status; beside the envelope where both occur. */
  platformReplies?: Array<{ status: number; component: string; description: string }>;
  /** The envelope failures of reading the body, where a route reads its own (a push route: only a malformed URL's 400). */
  bodyErrors?: ErrorCode[];
}

export const AUTH_ERRORS: ErrorCode[] = ["token_missing", "token_invalid", "token_expired", "session_revoked", "user_disabled"];
/** express.json runs before every route, so every body-carrying method can fail to parse. */
export const BODY_ERRORS: ErrorCode[] = ["invalid_request", "payload_too_large", "unsupported_media_type"];
/** Any route can hit a bug or lose its cache/database. */
export const COMMON_ERRORS: ErrorCode[] = ["service_unavailable", "internal_error"];

export const ref = (component: string) => ({ $ref: `#/components/schemas/${component}` });
export const componentName = (platform: PlatformDefinition) => platform.displayName.replace(/[^A-Za-z0-9]/g, "");

export function operationObject(op: OperationSpec): Json {
  const codes = unique([...(op.body || op.method !== "get" ? (op.bodyErrors ?? BODY_ERRORS) : []), ...op.errors, ...COMMON_ERRORS]);
  const responses: Json = {
    [op.success.status]: { description: op.success.description, content: { "application/json": { schema: ref(op.success.component) } } },
  };
  if (op.success.replay) responses[200] = { description: op.success.replay, content: { "application/json": { schema: ref(op.success.component) } } };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) responses[status] = errorResponse(status, list, op.errorFields);
  for (const reply of op.platformReplies ?? []) {
    const envelope = responses[reply.status] as { description: string; content: { "application/json": { schema: Json } } } | undefined;
    const schema = envelope ? { anyOf: [ref(reply.component), envelope.content["application/json"].schema] } : ref(reply.component);
    const description = envelope ? `${reply.description}; or the envelope: ${envelope.description}` : reply.description;
    responses[reply.status] = { description, content: { "application/json": { schema } } };
  }

  const result: Json = {
    tags: [op.tag],
    summary: op.summary,
    operationId: op.operationId,
    description: `${op.description}\n\n**Failure codes:** ${codes.map((c) => `\`${c}\` (${ERROR_CODES[c].status})`).join(", ")}.`,
    responses,
  };
  if (op.security === "bearer") result.security = [{ bearerAuth: [] }];
  // `{}` makes the key optional: it is required only when the server sets one.
  if (op.security === "internalKey") result.security = [{ internalKey: [] }, {}];
  if (op.security === "console") result.security = [{ consoleSession: [] }];
  if (op.security === "consoleChange") result.security = [{ consoleSession: [], consoleCsrf: [] }];
  if (op.query) {
    const schemas = [op.query.schema, op.query.also].filter((q): q is z.ZodType => q !== undefined);
    result.parameters = schemas.flatMap((schema) => queryParameters(schema, op.query!.examples));
  }
  if (op.pathParams) {
    const inPath = queryParameters(op.pathParams.schema, op.pathParams.examples).map((p) => ({ ...p, in: "path", required: true }));
    result.parameters = [...inPath, ...((result.parameters as Json[] | undefined) ?? [])];
  }
  if (op.body) {
    const examples = Object.fromEntries(Object.entries(op.body.examples).map(([k, value]) => [k, { value }]));
    result.requestBody = { required: true, content: { "application/json": { schema: inputSchema(op.body.schema), examples } } };
  }
  return result;
}

function errorResponse(status: number, codes: ErrorCode[], fields: z.ZodRawShape | undefined): Json {
  const schema = clean(z.toJSONSchema(s.errorEnvelope(codes as [ErrorCode, ...ErrorCode[]], fields)) as Json);
  const example = { success: false, message: ERROR_CODES[codes[0]].message, data: { code: codes[0] } };
  const headers =
    status === 429 && codes.includes("rate_limited")
      ? { "Retry-After": { description: "rate_limited: seconds until a retry can succeed", schema: { type: "integer" } } }
      : undefined;
  return {
    description: codes.map((c) => `\`${c}\`: ${ERROR_CODES[c].message}`).join("; "),
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema, example } },
  };
}

function queryParameters(schema: z.ZodType, examples: Record<string, string>): Json[] {
  const json = inputSchema(schema);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries((json.properties as Record<string, Json>) ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: required.has(name),
    schema: property,
    example: examples[name],
  }));
}

/** The request side: what the client sends, before transforms. Refinements are in the descriptions. */
function inputSchema(schema: z.ZodType): Json {
  return clean(z.toJSONSchema(schema, { io: "input" }) as Json);
}

/** Drops the standalone-document keys zod adds; inside OpenAPI they would reset the base URI. */
export function clean(schema: Json): Json {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
