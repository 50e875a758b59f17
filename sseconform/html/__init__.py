"""``--format html``: self-contained pages for ``gate``, ``check`` and ``load``. Pure writers:
results in, one HTML document out; every byte from the wire escaped."""
