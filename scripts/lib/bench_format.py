"""How a benchmark row (a JSON object, see bench-row) reads in a Markdown table; shared by
bench-row, which prints rows as they are measured, and bench-table, which renders a whole run."""


def figure(value):
    if value is None:
        return "failed"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "{:,}".format(int(value))
    return "{:,.2f}".format(value)


def result(row):
    text = "%s %s" % (figure(row.get("value")), row.get("unit", ""))
    latency = [("p50", row.get("p50")), ("p99", row.get("p99"))]
    shown = ["%s %s ms" % (name, figure(v)) for name, v in latency if v is not None]
    if shown:
        text += " (" + ", ".join(shown) + ")"
    if row.get("detail"):
        text += "; " + row["detail"]
    return text.strip()


def target(row):
    base = row.get("yardstick_value")
    yardstick = row.get("yardstick")
    if yardstick is None:
        return "yardstick" if row.get("is_yardstick") else ""
    against = "%s (%s)" % (yardstick, figure(base))
    verdict = {True: "met", False: "MISSED"}.get(row.get("met"), "")
    if "at_least" in row:
        goal = "≥ %.0f%% of %s" % (100 * row["at_least"], against)
    elif "at_most" in row:
        goal = "≤ %.2f× %s" % (row["at_most"], against)
    elif "within" in row:
        goal = "within %s %s of %s" % (figure(row["within"]), row.get("unit", ""), against)
    else:
        return "beside %s" % against
    if row.get("ratio") is not None:
        goal += ": %.0f%%" % (100 * row["ratio"]) if "at_most" not in row else ": %.2f×" % row["ratio"]
    elif "within" in row and row.get("value") is not None and base is not None:
        goal += ": %+.2f" % (row["value"] - base)
    return (goal + " " + verdict).strip()


def markdown_row(row):
    return "| %s | %s | %s |" % (row["name"], result(row), target(row))


def markdown_table(run):
    lines = [
        "Run of `scripts/bench %s` on %s, %d cores, %s." % (run["duration"], run["host"], run["cores"], run["date"]),
        "",
        "| row | result | target (same run) |",
        "| --- | --- | --- |",
    ]
    lines += [markdown_row(row) for row in run["rows"]]
    missed = [row["name"] for row in run["rows"] if row.get("met") is False]
    lines += ["", "Targets missed in this run: %d of %d." % (
        len(missed), sum(1 for row in run["rows"] if "met" in row))]
    return "\n".join(lines)
