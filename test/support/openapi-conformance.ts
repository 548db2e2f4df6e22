/** Checks real responses against the served API description, remembering which route + status pairs were seen. */
import assert from "node:assert/strict";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

const DOC_ID = "https://openapi.test/doc.json";

export interface CheckedResponse {
  status: number;
  body: any;
  headers: Headers;
}

export class Conformance {
  readonly seen = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: any) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, DOC_ID);
  }

  check<T extends CheckedResponse>(method: string, route: string, res: T): T {
    const operation = this.doc.paths[route]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${route} is not documented`);
    const response = operation.responses[String(res.status)];
    assert.ok(response, `${method} ${route} answered ${res.status}, which is not documented: ${JSON.stringify(res.body)}`);
    const pointer = ["paths", route, method.toLowerCase(), "responses", String(res.status), "content", "application/json", "schema"]
      .map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1"))
      .join("/");
    const key = `${DOC_ID}#/${pointer}`;
    let validate = this.compiled.get(key);
    if (!validate) this.compiled.set(key, (validate = this.ajv.compile({ $ref: key })));
    const valid = validate(res.body);
    assert.ok(valid, `${method} ${route} ${res.status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body)}`);
    this.seen.add(`${method.toUpperCase()} ${route} ${res.status}`);
    return res;
  }

  /** Routes under `prefix` without both a success and a failure seen. */
  unexercised(prefix: string): string[] {
    const missing: string[] = [];
    for (const [route, operations] of Object.entries(this.doc.paths as Record<string, Record<string, any>>)) {
      if (!route.startsWith(prefix)) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses).filter((s) => this.seen.has(`${method.toUpperCase()} ${route} ${s}`));
        if (!statuses.some((s) => s < "300")) missing.push(`${method} ${route}: no success`);
        if (!statuses.some((s) => s >= "400")) missing.push(`${method} ${route}: no failure`);
      }
    }
    return missing;
  }
}
