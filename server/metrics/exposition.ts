/**
 * The Prometheus text exposition format, version 0.0.4: what Prometheus and every compatible
 * scraper (VictoriaMetrics, Grafana Agent, Telegraf …) read. Written by hand: the format is a
 * HELP and a TYPE line per metric and one `name{label="value"} number` line per series, far less
 * than a client library's registry, and the gateway's figures all come from one place.
 */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

export interface MetricFamily {
  /** Counters end in `_total` (Prometheus naming), gauges do not. */
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabelValue = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  for (const [name] of entries) if (!LABEL_NAME.test(name)) throw new Error(`invalid label name "${name}"`);
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

/** The families as one exposition, each family's lines together, ending with a newline. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    // Names are constants in our code: a bad one is a bug to catch in tests, not to escape.
    if (!NAME.test(family.name)) throw new Error(`invalid metric name "${family.name}"`);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples)
      lines.push(`${family.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`);
  }
  return `${lines.join('\n')}\n`;
}
