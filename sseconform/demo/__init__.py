"""The demo gateway: a home-grown gateway, faithful or with a named bug, to gate first.

``sseconform demo-gateway`` runs it; the tests grade it with every mistake it can make.
"""
