"""Reads Prometheus's text exposition format on standard input with prometheus-client's parser and prints the metric
families as JSON. The parser raises on a line the format does not allow; that ends the script with its message."""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    families = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        families.append({
            "name": family.name,
            "type": family.type,
            "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
        })
    json.dump(families, sys.stdout)


if __name__ == "__main__":
    main()
