"""The shipped operators' kit as the monitoring tests read it: the
PrometheusRule's groups, its alerts and recording rules, the dashboard's
queries, and the metric names a PromQL expression reads."""
import json
import os
import re

import yaml

KIT = os.path.join("manifests", "monitoring")


def groups(repo):
    with open(os.path.join(repo, KIT, "prometheusrule.yaml")) as f:
        return yaml.safe_load(f)["spec"]["groups"]


def alerts(repo):
    return [r for g in groups(repo) for r in g["rules"] if "alert" in r]


def recorded(repo):
    return {r["record"]: r for g in groups(repo) for r in g["rules"] if "record" in r}


def write_rules_file(repo, path):
    """The PrometheusRule's spec as a plain rules file, as Prometheus and promtool read one."""
    with open(path, "w") as f:
        yaml.safe_dump({"groups": groups(repo)}, f, sort_keys=False)


def dashboard(repo):
    with open(os.path.join(repo, KIT, "dashboard.json")) as f:
        return json.load(f)


def dashboard_queries(repo, namespace=".*"):
    """(panel title, expr) of every target, its variables given values."""
    out = []
    for panel in dashboard(repo)["panels"]:
        for target in panel["targets"]:
            out.append((panel["title"], target["expr"].replace("$namespace", namespace)))
    return out


KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset", "inf", "nan"}


def metric_names(expr):
    """The metric names an expression selects: string literals, label matchers,
    ranges, grouping clauses and function names taken out first."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        name = m.group(0)
        rest = text[m.end():].lstrip()
        if rest.startswith("("):  # a function
            continue
        if name.lower() in KEYWORDS or re.fullmatch(r"\d+[smhdwy]", name):
            continue
        names.add(name)
    return names


def exported_family(name):
    """A histogram's series name as its family."""
    for suffix in ("_bucket", "_count", "_sum"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
