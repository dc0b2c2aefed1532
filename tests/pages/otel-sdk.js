// A page that registered its own OpenTelemetry SDK (the real @opentelemetry/sdk-trace-web and
// @opentelemetry/sdk-metrics, with in-memory exporters), as an instrumented app does before
// tokenpaint starts. Bundled by tests/browser/otlp.test.mjs; tokenpaint is loaded from /js/ as users do.
import { metrics } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { WebTracerProvider } from '@opentelemetry/sdk-trace-web';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

const spans = new InMemorySpanExporter();
const tracer = new WebTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
tracer.register();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 600000 });
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

/** What the app's SDK exporters received. */
window.otelDump = async () => {
  await reader.forceFlush();
  return {
    spans: spans.getFinishedSpans().map((s) => ({
      name: s.name,
      kind: s.kind,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: (s.parentSpanContext && s.parentSpanContext.spanId) || s.parentSpanId || null,
      attributes: s.attributes,
      events: s.events.map((e) => e.name),
    })),
    metrics: metricExporter.getMetrics().flatMap((rm) =>
      rm.scopeMetrics.flatMap((sm) =>
        sm.metrics.map((m) => ({
          scope: sm.scope.name,
          name: m.descriptor.name,
          unit: m.descriptor.unit,
          boundaries: m.dataPoints[0]?.value?.buckets?.boundaries || null,
          points: m.dataPoints.map((p) => ({ attributes: p.attributes, count: p.value.count })),
        })),
      ),
    ),
  };
};
window.otelReady = true;
