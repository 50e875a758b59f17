"""``python -m sseconform`` and the console script."""

from sseconform.cli.main import main

if __name__ == "__main__":
    main()
