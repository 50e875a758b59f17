"""The Open Responses specification as a grammar: the Responses rules and the spec's MUSTs."""
