"""The responses grammar: its checker (``checker.CHECKER``) and its rules (``rules/``,
one module per rule, each with its docs beside its code)."""
