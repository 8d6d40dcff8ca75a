"""The test suite: its shared helpers are ``tests.boards`` and ``conftest``."""
