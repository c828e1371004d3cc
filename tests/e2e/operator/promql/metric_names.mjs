// Reads a JSON list of PromQL expressions on stdin; writes, for each, the metric names its
// vector selectors name ({"expr": ..., "metrics": [...], "error": "..."}), parsed with
// Prometheus' own grammar (@prometheus-io/lezer-promql). Grafana's $variables are
// replaced by values of the same syntactic kind first ($__rate_interval by a duration).
import { parser } from "@prometheus-io/lezer-promql";
import { readFileSync } from "node:fs";

function metricsOf(expr) {
  const text = expr.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m");
  const tree = parser.parse(text);
  const metrics = [];
  let error = null;
  tree.iterate({
    enter(node) {
      if (node.type.isError && error === null) error = "syntax error at " + node.from + ": " + text;
      if (node.name === "VectorSelector") {
        const id = node.node.getChild("Identifier");
        if (id) metrics.push(text.slice(id.from, id.to));
      }
    },
  });
  return { expr, metrics, error };
}

const exprs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(exprs.map(metricsOf)) + "\n");
