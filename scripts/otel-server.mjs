// The demo server's own OpenTelemetry tracing (the real OpenTelemetry JS SDK for Node), on when
// the server is started with `otel: true`: each chat completion is a SERVER span whose parent is
// the W3C trace context the request carried (`traceparent`), as a vLLM or TGI server behind an
// instrumented gateway would record it. Spans are kept in memory and listed at GET /__otel, with
// the `traceparent` each chat request came with.
import { ROOT_CONTEXT, SpanKind, defaultTextMapGetter } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

export function serverTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('tokenpaint-demo-server');
  const propagator = new W3CTraceContextPropagator();
  const requests = [];
  return {
    /** A chat request arrived: its span, ended when the response closes. */
    start(req, res, url) {
      requests.push({ url: url.pathname + url.search, traceparent: req.headers.traceparent || null });
      const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span = tracer.startSpan('chat tokenpaint-sim', { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'url.path': url.pathname } }, parent);
      res.on('close', () => span.end());
    },
    dump() {
      const spans = exporter.getFinishedSpans().map((s) => ({
        name: s.name,
        traceId: s.spanContext().traceId,
        spanId: s.spanContext().spanId,
        parentSpanId: (s.parentSpanContext && s.parentSpanContext.spanId) || s.parentSpanId || null,
      }));
      return { spans, requests };
    },
  };
}
