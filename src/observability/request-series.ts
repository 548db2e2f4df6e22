import type client from "prom-client";

type RequestLabels = { method: string; route: string; status: string };

interface Series {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative): index i counts values in (bounds[i-1], bounds[i]], the last one above every bound. */
  perBucket: number[];
}

/** What prom-client's registry reads from a metric at scrape time. */
interface ExportedMetric {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: string; aggregator: "sum"; values: client.MetricValueWithName<string>[] }>;
  reset(): void;
}

/**
 * The two per-request series, `http_requests_total` and `http_request_duration_seconds`, kept as
 * plain numbers and written out in prom-client's shape only when scraped. prom-client's own
 * Counter and Histogram validate and hash the labels object again on every observation, a few
 * microseconds on every request; here an observation is one Map lookup and three additions.
 */
export class RequestSeries {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly bounds: readonly number[],
    names: { counter: string; counterHelp: string; histogram: string; histogramHelp: string },
    registry: client.Registry,
  ) {
    registry.registerMetric(this.counter(names.counter, names.counterHelp) as unknown as client.Metric);
    registry.registerMetric(this.histogram(names.histogram, names.histogramHelp) as unknown as client.Metric);
  }

  /** Bounded like the labels: methods Node parses, route templates, statuses. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: new Array<number>(this.bounds.length + 1).fill(0) };
      this.series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket++;
    series.perBucket[bucket] += 1;
  }

  private counter(name: string, help: string): ExportedMetric {
    return {
      name,
      help,
      type: "counter",
      aggregator: "sum",
      get: async () => ({ name, help, type: "counter", aggregator: "sum", values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.count })) }),
      reset: () => this.series.clear(),
    };
  }

  private histogram(name: string, help: string): ExportedMetric {
    const values = (): client.MetricValueWithName<string>[] => {
      const out: client.MetricValueWithName<string>[] = [];
      for (const s of this.series.values()) {
        let cumulative = 0;
        this.bounds.forEach((bound, i) => {
          cumulative += s.perBucket[i];
          out.push({ labels: { le: bound, ...s.labels }, value: cumulative, metricName: `${name}_bucket` });
        });
        out.push({ labels: { le: "+Inf", ...s.labels }, value: s.count, metricName: `${name}_bucket` });
        out.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
        out.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
      }
      return out;
    };
    return {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: async () => ({ name, help, type: "histogram", aggregator: "sum", values: values() }),
      reset: () => this.series.clear(),
    };
  }
}
