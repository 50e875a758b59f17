"""The schemas a Gemini chunk and Google's error are validated against (in ``schemas/``),
named once for the checker and the rules that validate a part of a chunk again."""

RESPONSE = "gemini/generate-content-response"
ERROR = "gemini/error"
