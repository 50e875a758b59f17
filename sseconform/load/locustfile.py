"""The locustfile ``sseconform load`` runs (``sseconform load --print-locustfile`` prints its
path, for ``locust -f PATH --master`` / ``--worker`` by hand)."""

from sseconform.load.user import SseconformUser


class GatewayStreams(SseconformUser):
    """Every scenario of the settings' suites, picked at random, back to back."""
