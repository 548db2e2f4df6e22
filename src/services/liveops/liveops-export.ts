/**
 * A player's LiveOps records for the export (the data-access right): per app, the experiment
 * variants they were assigned (the exposure records analytics joins on) and the properties server
 * code set on them. Apps with neither are left out.
 */
import type { LiveOpsStore } from "../../core/ports/liveops-store";

export interface LiveOpsExportRow {
  app: string;
  assignments: Record<string, string>;
  properties: Record<string, unknown>;
}

export async function liveOpsRecordsOf(store: Pick<LiveOpsStore, "assignments" | "properties">, apps: readonly string[], userId: string): Promise<LiveOpsExportRow[]> {
  const rows = await Promise.all(apps.map(async (app) => ({ app, assignments: await store.assignments(app, userId), properties: await store.properties(app, userId) })));
  return rows.filter((row) => Object.keys(row.assignments).length > 0 || Object.keys(row.properties).length > 0);
}
