"""Validates an OTLP/HTTP JSON payload with the official OpenTelemetry protobuf definitions
(the opentelemetry-proto package's generated classes) and the protobuf JSON mapping.

    python3 scripts/otlp_validate.py traces|metrics payload.json

OTLP/JSON differs from the plain protobuf JSON mapping in one way: trace and span ids are hex,
not base64. They are converted (and their lengths checked) before a strict parse, which rejects
unknown fields and wrong types. Prints the encoded size; exits non-zero on any error.
"""
import base64
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

IDS = {"traceId": 16, "spanId": 8, "parentSpanId": 8}


def hex_ids_to_base64(node):
    if isinstance(node, dict):
        for key, value in list(node.items()):
            if key in IDS and isinstance(value, str):
                raw = bytes.fromhex(value)
                if len(raw) not in (IDS[key], 0):
                    raise ValueError(f"{key} has {len(raw)} bytes")
                node[key] = base64.b64encode(raw).decode()
            else:
                hex_ids_to_base64(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    hex_ids_to_base64(data)
    message = ExportTraceServiceRequest() if kind == "traces" else ExportMetricsServiceRequest()
    json_format.ParseDict(data, message, ignore_unknown_fields=False)
    print(message.ByteSize())


if __name__ == "__main__":
    main()
