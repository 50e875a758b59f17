"""The finding every layer above the rules speaks in: :class:`Diagnostic`, defined beside
the rule catalog (:mod:`sseconform.rules.diagnostic`) so the rules need nothing above them."""

from sseconform.rules.diagnostic import Diagnostic
from sseconform.safetext import printable

__all__ = ["Diagnostic", "printable"]
