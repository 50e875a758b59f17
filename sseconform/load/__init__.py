"""``load``: conformance under load, on Locust. Every request is tagged so the replay upstream
answers it with its own scenario; every stream is checked and compared by meaning as it
arrives. ``plan`` and ``stats`` are plain Python; ``user`` (the Locust user class) needs
Locust (``pip install 'sseconform[load]'``)."""
