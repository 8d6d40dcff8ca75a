"""Leagues: configuration and schedule, the runner that plays the games, the store that keeps
them, ratings and standings; ``play`` ties them together for ``goarena league``."""
