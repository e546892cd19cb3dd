#!/usr/bin/python3
"""Every Markdown table of a benchmark's results.md as one long CSV (bench/*/run call it).

  bench/tables_to_csv.py RESULTS.md RESULTS.csv

One row per table cell: section (the nearest heading above the table, without its '#'s), table
(1, 2, ... within that section), row (1, 2, ... below the header), column (the header's text) and
value (the cell's text, Markdown emphasis and code marks removed). A long table keeps every
benchmark's CSV readable by the same code whatever its tables' columns, e.g. in pandas:
pd.read_csv(f).pivot_table(index=["section", "table", "row"], columns="column", values="value",
aggfunc="first").
"""
import csv
import re
import sys


def cells(line):
    """The cells of a Markdown table line '| a | b |'."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def plain(text):
    """A cell's text without Markdown emphasis or code marks."""
    return re.sub(r"\*\*|`", "", text).strip()


def tables(lines):
    """Yield (section, table, row, column, value) for every cell of every table."""
    section, count, i = "", {}, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            i += 1
            continue
        is_table = (line.lstrip().startswith("|") and i + 1 < len(lines)
                    and re.fullmatch(r"\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*\|?\s*", lines[i + 1]))
        if not is_table:
            i += 1
            continue
        header = [plain(c) for c in cells(line)]
        count[section] = count.get(section, 0) + 1
        i += 2
        row = 0
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            row += 1
            for column, value in zip(header, cells(lines[i])):
                yield section, count[section], row, column, plain(value)
            i += 1


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench/tables_to_csv.py RESULTS.md RESULTS.csv")
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open(sys.argv[2], "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["section", "table", "row", "column", "value"])
        for record in tables(lines):
            out.writerow(record)


if __name__ == "__main__":
    main()
