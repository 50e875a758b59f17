"""What the project's own builds and tests use and the package does not ship."""
