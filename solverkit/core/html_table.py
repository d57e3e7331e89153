"""An HTML table of escaped cells: what a game's ``report_strategy`` returns as a fragment of
``solverkit report``'s page (here in core so that a game needs nothing of the report package)."""

from __future__ import annotations

import html


def table(headers, rows) -> str:
    """An HTML table of escaped cells (no header row for headers None)."""
    head = "" if headers is None else "<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr></thead>"
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}<tbody>{body}</tbody></table>"
