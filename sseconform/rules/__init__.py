"""The rules: the catalog, then every rule package, so that importing anything of this
package (``sseconform.rules.catalog`` first of all) finds every rule registered.

The packages are named here, not found at run time, so the import graph shows every arrow
(``tests/test_architecture.py`` follows these lines like any other import); a grammar added
to ``catalog.GRAMMARS`` needs its line here (``tests/test_emitted_codes.py`` says so).
"""

# The order is the registration order: a specification layered on a grammar (open-responses)
# builds on its base grammar's invariants, so the base comes first.
# isort: off
from sseconform.rules import catalog
from sseconform.rules.shared import rules as shared_rules
from sseconform.rules.chat import rules as chat_rules
from sseconform.rules.anthropic import rules as anthropic_rules
from sseconform.rules.responses import rules as responses_rules
from sseconform.rules.open_responses import rules as open_responses_rules
from sseconform.rules.gemini import rules as gemini_rules

# isort: on

#: Each rule package, by the name it has in the catalog ("shared" and each grammar).
PACKAGES = {
    "shared": shared_rules,
    "chat": chat_rules,
    "anthropic": anthropic_rules,
    "responses": responses_rules,
    "open-responses": open_responses_rules,
    "gemini": gemini_rules,
}

__all__ = ["PACKAGES", "catalog"]
