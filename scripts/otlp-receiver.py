"""An OTLP/HTTP receiver for scripts/otlp-roundtrip: takes `POST /v1/traces` and `POST /v1/metrics` with protobuf
bodies (gzip-encoded or not), decodes them with the OpenTelemetry project's own message definitions
(`opentelemetry-proto`, PyPI), and appends what it decoded to a JSON-lines file, one line per span and per metric
data point:
  {"signal": "span", "name", "kind", "trace_id", "span_id", "parent_span_id", "attributes", "status", "resource"}
  {"signal": "metric", "name", "type", "attributes", "count", "value", "resource"}
A body it cannot decode is answered 400 and recorded as {"signal": "error", "path", "error"}.
  otlp-receiver.py OUTPUT.jsonl      # prints the port it listens on (127.0.0.1), then serves until killed
"""
import gzip
import http.server
import json
import socketserver
import sys
import threading

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

output_path = sys.argv[1]
lock = threading.Lock()


def plain(any_value):
    """An `AnyValue` as a Python value (arrays and maps as lists and dicts)."""
    which = any_value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [plain(item) for item in any_value.array_value.values]
    if which == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    if which == "bytes_value":
        return any_value.bytes_value.hex()
    return getattr(any_value, which)


def attributes(pairs):
    return {pair.key: plain(pair.value) for pair in pairs}


def each(resources, scopes, items):
    """(resource attributes, item) for every span or metric of an export request, whose messages nest them in a
    resource's scopes."""
    for by_resource in resources:
        resource = attributes(by_resource.resource.attributes)
        for scope in getattr(by_resource, scopes):
            for item in getattr(scope, items):
                yield resource, item


def spans(body):
    request = ExportTraceServiceRequest.FromString(body)
    for resource, span in each(request.resource_spans, "scope_spans", "spans"):
        yield {
            "signal": "span", "name": span.name, "kind": span.kind, "trace_id": span.trace_id.hex(),
            "span_id": span.span_id.hex(), "parent_span_id": span.parent_span_id.hex(),
            "attributes": attributes(span.attributes), "status": span.status.code, "resource": resource,
        }
    yield ExportTraceServiceResponse()


def metric_points(body):
    request = ExportMetricsServiceRequest.FromString(body)
    for resource, metric in each(request.resource_metrics, "scope_metrics", "metrics"):
        kind = metric.WhichOneof("data")
        for point in getattr(metric, kind).data_points:
            value = None
            if kind in ("gauge", "sum"):
                value = getattr(point, point.WhichOneof("value"))
            yield {
                "signal": "metric", "name": metric.name, "type": kind, "attributes": attributes(point.attributes),
                "count": point.count if kind in ("histogram", "exponential_histogram") else None,
                "value": value, "resource": resource,
            }
    yield ExportMetricsServiceResponse()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        decode = {"/v1/traces": spans, "/v1/metrics": metric_points}.get(self.path)
        if decode is None:
            self.send_response(404)
            self.end_headers()
            return
        try:
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            *records, response = list(decode(body))
        except Exception as error:  # a body the definitions reject is the client's fault: record it, answer 400
            self.record([{"signal": "error", "path": self.path, "error": repr(error)}])
            self.send_response(400)
            self.end_headers()
            return
        self.record(records)
        payload = response.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def record(self, records):
        with lock, open(output_path, "a") as output:
            for record in records:
                output.write(json.dumps(record) + "\n")

    def log_message(self, *arguments):
        pass


class Server(http.server.ThreadingHTTPServer):
    def server_bind(self):
        # HTTPServer's own server_bind asks the resolver for 127.0.0.1's fully qualified name (socket.getfqdn), which
        # on a machine whose /etc/hosts does not name it waits for DNS servers that may never answer (the likeliest
        # reason a CI run saw no port within the round trip's start-up limit). Nothing here uses the name.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


server = Server(("127.0.0.1", 0), Receiver)
print(server.server_address[1], flush=True)
server.serve_forever()
