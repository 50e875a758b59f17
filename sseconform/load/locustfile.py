"""The locustfile ``sseconform load`` runs (``sseconform load --print-locustfile`` prints its
path, for ``locust -f PATH --master`` / ``--worker`` by hand)."""

import os

from sseconform.load.user import CapacitySteps, SseconformUser


class GatewayStreams(SseconformUser):
    """Every scenario of the settings' suites, picked at random, back to back."""


if os.environ.get("SSECONFORM_LOAD_STEPS"):  # load --find-capacity: the users go up in steps

    class Steps(CapacitySteps):
        """The capacity search's steps (``CapacitySteps``)."""
