"""The gemini grammar: Gemini's ``GenerateContentResponse`` stream as gateways serve it
(``streamGenerateContent?alt=sse``): its checker (``checker.CHECKER``) and its rules
(``rules/``, one module per rule, each with its docs beside its code)."""
