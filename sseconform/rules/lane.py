"""``check``'s side of the byte lane: the JSON it reads with.

The lane itself lies below ``check`` and ``translate`` alike (``sse/lane.py``,
``sse/template.py``): events cut on their blank lines, a checked delta's template matched on
the bytes, each run's values checked in bulk, the decoder told what was skipped. What
``check`` does with a run is its grammars' (``_template_take``: the values go where the last
one went) and its checker's (``base.py``: the last event's place, the counts).
"""

from __future__ import annotations

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.sse.template import Json, Run

__all__ = ["JSON", "Run"]

#: orjson, and its string grammar (``jsonstr``), for the lane's cuts, matches and values.
JSON = Json(orjson.loads, JSON_STRING, find_literal)
