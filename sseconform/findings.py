"""The finding every layer above the rules speaks in: :class:`Finding`, defined beside the
rule catalog (:mod:`sseconform.rules.finding`) so the rules need nothing above them."""

from sseconform.rules.finding import Finding
from sseconform.safetext import printable

__all__ = ["Finding", "printable"]
