"""J002 not-an-object: An event's data is JSON but not an object."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "J002",
    "not-an-object",
    Severity.ERROR,
    None,
    "An event's data is JSON but not an object.",
    RuleDoc(
        what=(
            'An event\'s data is JSON but not an object, e.g. `data: 42`, `data: "x"` or `data: '
            "[1]`."
        ),
        why=(
            "Clients expect an object with `choices` (or `error`); any other JSON value is "
            "neither a chunk nor an error."
        ),
        clients=(
            "Beyond the matrix: Clients that validate each chunk (the AI SDK does, as "
            "the leaked-native-frame measurement shows) reject it; clients that read `choices` "
            "from it fail with a type error."
        ),
        fix=('data: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)
