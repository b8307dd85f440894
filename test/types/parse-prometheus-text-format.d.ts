/** Types of the parts of parse-prometheus-text-format the tests use (the package ships none). */
declare module 'parse-prometheus-text-format' {
  export interface PromMetric {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PromMetric[];
  }
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
