import type { Metrics } from "../../src/observability/metrics";

/** The current value of one counter series (0 when never incremented), for unit tests of instrumented services. */
export async function counterValue(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric named ${name}`);
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return hit?.value ?? 0;
}
