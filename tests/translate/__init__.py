"""Tests of the reference translators (``sseconform.translate``) and their golden files."""
